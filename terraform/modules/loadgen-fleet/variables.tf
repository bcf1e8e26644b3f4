variable "names" {
  description = "Resource names of the run (modules/spec output `names`): cluster, task_family, ecr_repository, log_group, task_role, execution_role, security_group, dynamodb_vpc_endpoint."
  type = object({
    cluster               = string
    task_family           = string
    ecr_repository        = string
    log_group             = string
    task_role             = string
    execution_role        = string
    security_group        = string
    dynamodb_vpc_endpoint = string
  })

  validation {
    condition     = can(regex("^[a-z0-9][a-z0-9._/-]{1,255}$", var.names.ecr_repository)) && length(var.names.task_role) <= 64 && length(var.names.execution_role) <= 64
    error_message = "names.ecr_repository must be lowercase (ECR rule) and role names at most 64 characters (IAM rule)."
  }
}

variable "region" {
  description = "AWS region of the run, e.g. us-east-1 (used for the awslogs driver and the VPC endpoint service name)."
  type        = string

  validation {
    condition     = can(regex("^[a-z]{2}(-[a-z]+)+-[0-9]$", var.region))
    error_message = "region must look like us-east-1."
  }
}

variable "table_arns" {
  description = "ARNs of THIS run's benchmark tables. The task role may use data-plane actions on these, their /index/*, and the results table, nothing else."
  type        = list(string)

  validation {
    condition     = length(var.table_arns) > 0 && alltrue([for a in var.table_arns : can(regex("^arn:aws[a-z-]*:dynamodb:[a-z0-9-]+:[0-9]{12}:table/[A-Za-z0-9_.-]+$", a))])
    error_message = "table_arns must be non-empty and hold full DynamoDB table ARNs (no wildcards)."
  }
}

variable "results_table_arn" {
  description = "ARN of the run's results table (modules/results-table)."
  type        = string

  validation {
    condition     = can(regex("^arn:aws[a-z-]*:dynamodb:[a-z0-9-]+:[0-9]{12}:table/[A-Za-z0-9_.-]+$", var.results_table_arn))
    error_message = "results_table_arn must be a full DynamoDB table ARN (no wildcards)."
  }
}

variable "image" {
  description = "Worker container image. null (the default) uses <this run's ECR repository>:latest, which you push before starting tasks. An image in another private ECR repository (<account>.dkr.ecr.<region>.amazonaws.com/<repository>[:tag]) may be pulled too: the execution role is allowed that repository (another account's repository must also allow this role in its repository policy)."
  type        = string
  default     = null
}

variable "cpu" {
  description = "Fargate task CPU units: 256, 512, 1024, 2048, 4096, 8192 or 16384 (checked with memory as a pair by modules/fargate-task)."
  type        = number
  default     = 1024

  validation {
    condition     = contains([256, 512, 1024, 2048, 4096, 8192, 16384], var.cpu)
    error_message = "cpu must be one of 256, 512, 1024, 2048, 4096, 8192, 16384."
  }
}

variable "memory" {
  description = "Fargate task memory in MiB; must be a valid pair with cpu in AWS's table (modules/fargate-task), e.g. 1024 CPU takes 2048-8192 in 1024 steps."
  type        = number
  default     = 2048
}

variable "cpu_architecture" {
  description = "Fargate CPU architecture: X86_64 or ARM64 (ARM64 is about 20% cheaper; the image must be built for it)."
  type        = string
  default     = "X86_64"

  validation {
    condition     = contains(["X86_64", "ARM64"], var.cpu_architecture)
    error_message = "cpu_architecture must be X86_64 or ARM64."
  }
}

variable "environment" {
  description = "Extra environment variables for the worker container (HOTBENCH_* variables set by the root stack win)."
  type        = map(string)
  default     = {}
}

variable "log_retention_days" {
  description = "CloudWatch Logs retention for worker logs, in days (a CloudWatch-allowed value such as 1, 3, 5, 7, 14, 30)."
  type        = number
  default     = 7

  validation {
    condition     = contains([1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653], var.log_retention_days)
    error_message = "log_retention_days must be a value CloudWatch Logs accepts (1, 3, 5, 7, 14, 30, 60, 90, ...)."
  }
}

variable "subnet_ids" {
  description = "Subnets for the worker tasks. Empty (the default) uses the default VPC's default subnets (public: tasks then need a public IP to reach AWS APIs)."
  type        = list(string)
  default     = []
}

variable "security_group_ids" {
  description = "Security groups for the worker tasks. Empty (the default) uses this module's own group (no inbound, HTTPS out)."
  type        = list(string)
  default     = []
}

variable "assign_public_ip" {
  description = "Public IP for each task; null (the default): true on the default VPC (public subnets without NAT), false on given subnets."
  type        = bool
  default     = null
  nullable    = true
}

variable "create_dynamodb_vpc_endpoint" {
  description = "Create a DynamoDB gateway VPC endpoint on route_table_ids (or every route table of the VPC). Free; keeps table traffic off NAT gateways. Affects every workload in that VPC's route tables."
  type        = bool
  default     = false
}

variable "route_table_ids" {
  description = "Route tables for the DynamoDB gateway endpoint. Empty (the default) means every route table of the VPC."
  type        = list(string)
  default     = []
}

variable "tags" {
  description = "Tags for every taggable resource; include hotbench:run-id (modules/spec output tags)."
  type        = map(string)
  default     = {}

  validation {
    condition     = contains(keys(var.tags), "hotbench:run-id")
    error_message = "tags must include hotbench:run-id so leftovers can be found by tag."
  }
}
