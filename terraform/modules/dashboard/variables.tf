variable "dashboard_name" {
  description = "CloudWatch dashboard name, e.g. hotbench-<run_id> (modules/spec output names.dashboard)."
  type        = string

  validation {
    condition     = can(regex("^[A-Za-z0-9_-]{1,255}$", var.dashboard_name))
    error_message = "dashboard_name may contain only letters, digits, '-' and '_' (at most 255 characters)."
  }
}

variable "region" {
  description = "Region of the tables, e.g. us-east-1."
  type        = string

  validation {
    condition     = can(regex("^[a-z]{2}(-[a-z]+)+-[0-9]$", var.region))
    error_message = "region must look like us-east-1."
  }
}

variable "tables" {
  description = "Variant name -> {name = table name, gsis = list of GSI names} (modules/table outputs name and gsis)."
  type = map(object({
    name = string
    gsis = list(string)
  }))

  validation {
    condition     = length(var.tables) > 0
    error_message = "tables must hold at least one table."
  }
}
