variable "names" {
  description = "Resource names of the run (modules/spec output `names`): backstop_group, backstop_role."
  type = object({
    backstop_group = string
    backstop_role  = string
  })

  validation {
    condition     = can(regex("^[0-9a-zA-Z-_.]{1,64}$", var.names.backstop_group)) && length(var.names.backstop_role) <= 64
    error_message = "names.backstop_group must be 1-64 of [0-9a-zA-Z-_.] (Scheduler's rule) and the role name at most 64 characters (IAM rule)."
  }
}

variable "region" {
  description = "AWS region of the run's tables and tasks, e.g. us-east-1."
  type        = string

  validation {
    condition     = can(regex("^[a-z]{2}(-[a-z]+)+-[0-9]$", var.region))
    error_message = "region must look like us-east-1."
  }
}

variable "at" {
  description = "When the backstop acts, RFC 3339 in UTC (e.g. 2025-06-01T18:15:00Z): after the run's deadline, when the operator's own `down` should long be done."
  type        = string

  validation {
    condition     = can(formatdate("YYYY", var.at))
    error_message = "at must be an RFC 3339 timestamp such as 2025-06-01T18:15:00Z."
  }
}

variable "tables" {
  description = "The tables to delete, key (variant, or `results`) => table name."
  type        = map(string)

  validation {
    condition     = alltrue([for k in keys(var.tables) : can(regex("^[0-9a-zA-Z-_.]+$", k))])
    error_message = "table keys name the schedules: only letters, digits, '-', '_' and '.'."
  }
}

variable "cluster_name" {
  description = "The run's ECS cluster: the backstop role may stop its tasks only."
  type        = string
}

variable "dashboard_name" {
  description = "The run's CloudWatch dashboard to delete too; null: none."
  type        = string
  default     = null
}

variable "tags" {
  description = "The run's tags (modules/spec output `tags`)."
  type        = map(string)
  default     = {}
}
