variable "table_arns" {
  description = "ARNs of THIS run's benchmark tables: the workers may use their data plane (and their indexes') only."
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
