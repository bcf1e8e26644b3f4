variable "name" {
  description = "Table name, e.g. hotbench-<run_id>-results (modules/spec output names.results_table)."
  type        = string

  validation {
    condition     = can(regex("^[A-Za-z0-9_.-]{3,255}$", var.name))
    error_message = "name must be 3-255 characters of letters, digits, '_', '.' or '-'."
  }
}

variable "tags" {
  description = "Tags for the table; include hotbench:run-id (modules/spec output tags)."
  type        = map(string)
  default     = {}

  validation {
    condition     = contains(keys(var.tags), "hotbench:run-id")
    error_message = "tags must include hotbench:run-id so leftovers can be found by tag."
  }
}
