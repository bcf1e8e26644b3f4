variable "cpu" {
  description = "Fargate task CPU units: 256, 512, 1024, 2048, 4096, 8192 or 16384."
  type        = number

  validation {
    condition     = contains([256, 512, 1024, 2048, 4096, 8192, 16384], var.cpu)
    error_message = "cpu must be one of 256, 512, 1024, 2048, 4096, 8192, 16384 (Fargate task CPU units)."
  }
}

variable "memory" {
  description = "Fargate task memory in MiB; must be a valid pair with cpu in AWS's table (see main.tf), e.g. 1024 CPU takes 2048-8192 in 1024 steps."
  type        = number

  validation {
    condition     = contains(lookup(local.fargate_memory_mib, tostring(var.cpu), []), var.memory)
    error_message = "memory is not valid with this cpu on Fargate. Valid MiB: 256 CPU -> 512, 1024, 2048; 512 -> 1024-4096 in 1024 steps; 1024 -> 2048-8192 in 1024 steps; 2048 -> 4096-16384 in 1024 steps; 4096 -> 8192-30720 in 1024 steps; 8192 -> 16384-61440 in 4096 steps; 16384 -> 32768-122880 in 8192 steps."
  }
}

variable "image" {
  description = "Worker container image, or null for the run's own ECR repository. An ECR image (<account>.dkr.ecr.<region>.amazonaws.com/<repository>[:tag]) yields that repository's ARN so the execution role may pull from it."
  type        = string
  default     = null

  validation {
    condition     = var.image == null || try(length(trimspace(var.image)) > 0, false)
    error_message = "image must be null (the run's ECR repository) or a non-empty image reference."
  }
}
