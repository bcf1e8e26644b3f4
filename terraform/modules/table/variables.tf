variable "table" {
  description = "ONE entry of a hotbench variant spec's `tables` list (see modules/spec for the keys). item_size_bytes and seed_items are ignored."
  type        = any

  validation {
    condition     = can(var.table.name) && can(var.table.partition_key.name)
    error_message = "table must be one spec entry with at least `name` and `partition_key`."
  }
}

variable "run_id" {
  description = "Run identifier (lowercase letters, digits, '-', at most 24 characters); the table is named hotbench-<run_id>-<table.name>."
  type        = string

  validation {
    condition     = can(regex("^[a-z0-9]([a-z0-9-]{0,22}[a-z0-9])?$", var.run_id))
    error_message = "run_id must be 1-24 characters of lowercase letters, digits and '-', starting and ending with a letter or digit."
  }
}

variable "owner" {
  description = "Owner stored in the hotbench:owner tag."
  type        = string

  validation {
    condition     = length(var.owner) > 0
    error_message = "owner must not be empty."
  }
}

variable "expires_at" {
  description = "RFC 3339 expiry stored in the hotbench:expires-at tag."
  type        = string

  validation {
    condition     = can(formatdate("YYYY", var.expires_at))
    error_message = "expires_at must be an RFC 3339 timestamp such as 2025-06-01T18:00:00Z."
  }
}

variable "tags" {
  description = "Extra tags for the table and its contributor insights (hotbench:* tags are always added)."
  type        = map(string)
  default     = {}
}
