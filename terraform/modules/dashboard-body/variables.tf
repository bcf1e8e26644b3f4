variable "dashboard_name" {
  description = "CloudWatch dashboard name (letters, digits, '-', '_'; at most 255 characters)."
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
  description = "Variant name -> {name = table name, gsis = list of GSI names}. Each table and each GSI gets a capacity widget and a throttle-by-cause widget."
  type = map(object({
    name = string
    gsis = list(string)
  }))

  validation {
    condition     = length(var.tables) > 0
    error_message = "tables must hold at least one table."
  }
}

variable "period" {
  description = "Metric period in seconds (DynamoDB publishes 1-minute metrics, so 60 is the finest)."
  type        = number
  default     = 60

  validation {
    condition     = var.period >= 60 && var.period % 60 == 0
    error_message = "period must be a multiple of 60 seconds."
  }
}
