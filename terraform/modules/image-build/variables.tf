variable "run_id" {
  description = "The run's id (modules/spec), for the project's description."
  type        = string

  validation {
    condition     = can(regex("^[a-z0-9]([a-z0-9-]{0,22}[a-z0-9])?$", var.run_id))
    error_message = "run_id must be 1-24 characters of lowercase letters, digits and '-'."
  }
}

variable "names" {
  description = "Resource names of the run (modules/spec output `names`): prefix, image_build, build_role."
  type = object({
    prefix      = string
    image_build = string
    build_role  = string
  })

  validation {
    condition     = length(var.names.prefix) <= 37 && length(var.names.build_role) <= 64
    error_message = "names.prefix must leave room for -src-<account id> in a 63-character bucket name, and the role name be at most 64 characters (IAM rule)."
  }
}

variable "repository_url" {
  description = "The run's ECR repository URL (modules/loadgen-fleet), where the build pushes."
  type        = string
}

variable "repository_arn" {
  description = "The run's ECR repository ARN: the only repository the build may push to."
  type        = string
}

variable "log_group_name" {
  description = "Log group the build writes to (the fleet's, stream image-build)."
  type        = string
}

variable "log_group_arn" {
  description = "ARN of that log group, for the build role's permission."
  type        = string
}

variable "cpu_architecture" {
  description = "X86_64 or ARM64: the build runs natively on the task's architecture."
  type        = string
  default     = "X86_64"

  validation {
    condition     = contains(["X86_64", "ARM64"], var.cpu_architecture)
    error_message = "cpu_architecture must be X86_64 or ARM64."
  }
}

variable "build_timeout_minutes" {
  description = "CodeBuild stops a build after this many minutes (billed per minute until then)."
  type        = number
  default     = 30

  validation {
    condition     = var.build_timeout_minutes >= 5 && var.build_timeout_minutes <= 120
    error_message = "build_timeout_minutes must be 5 to 120 (CodeBuild accepts 5-2160; a worker image builds in minutes)."
  }
}

variable "tags" {
  description = "Tags for every taggable resource; include hotbench:run-id (modules/spec output tags)."
  type        = map(string)

  validation {
    condition     = contains(keys(var.tags), "hotbench:run-id")
    error_message = "tags must include hotbench:run-id so leftovers can be found by tag."
  }
}
