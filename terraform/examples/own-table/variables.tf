variable "spec_file" {
  description = "Spec file whose `tables` list to create. null (the default) is my-table.yaml beside this file; `hotbench optimize --out DIR` writes DIR/best.tfvars.json, which sets it to DIR/best.yaml."
  type        = string
  default     = null
}

variable "run_id" {
  description = "Run identifier: lowercase letters, digits and '-', at most 24 characters."
  type        = string

  validation {
    condition     = can(regex("^[a-z0-9]([a-z0-9-]{0,22}[a-z0-9])?$", var.run_id))
    error_message = "run_id must be 1-24 characters of lowercase letters, digits and '-', starting and ending with a letter or digit."
  }
}

variable "owner" {
  description = "Who to ask about these resources (e-mail or team)."
  type        = string

  validation {
    condition     = length(trimspace(var.owner)) > 0
    error_message = "owner must not be empty."
  }
}

variable "expires_at" {
  description = "RFC 3339 time after which anyone may delete these resources."
  type        = string

  validation {
    condition     = can(formatdate("YYYY", var.expires_at))
    error_message = "expires_at must be an RFC 3339 timestamp such as 2025-06-01T18:00:00Z."
  }
}

variable "region" {
  description = "AWS region (prices in the README are for us-east-1)."
  type        = string
  default     = "us-east-1"

  validation {
    condition     = can(regex("^[a-z]{2}(-[a-z]+)+-[0-9]$", var.region))
    error_message = "region must look like us-east-1."
  }
}
