variable "tables" {
  description = <<-EOT
    The `tables` list of a hotbench variant spec (e.g. yamldecode(file("playbooks/hot-partition.yaml")).tables).
    Each entry: name, partition_key {name, type S|N|B}, optional sort_key, billing_mode PROVISIONED|PAY_PER_REQUEST,
    read_capacity/write_capacity (PROVISIONED only), optional on_demand_max {read, write}, optional
    warm_throughput {read, write}, optional contributor_insights THROTTLED_KEYS|ACCESSED_AND_THROTTLED_KEYS,
    optional table_class STANDARD|STANDARD_INFREQUENT_ACCESS,
    optional gsis [{name, partition_key, sort_key?, projection ALL|KEYS_ONLY|INCLUDE, non_key_attributes?,
    read_capacity?, write_capacity?, on_demand_max?, warm_throughput?, auto_scaling?}], optional auto_scaling
    {read?, write?: {target_pct, min, max, scale_in_cooldown_s?, scale_out_cooldown_s?, disable_scale_in?}}
    (PROVISIONED only). Other keys (item_size_bytes, seed_items, history, reserved_capacity: billing only)
    are ignored.
  EOT
  type        = any

  validation {
    condition     = can(length(var.tables)) && try(length(var.tables) > 0, false)
    error_message = "tables must be a non-empty list of table entries (the `tables` key of the spec file)."
  }
  validation {
    condition     = alltrue([for t in var.tables : can(regex("^[A-Za-z0-9][A-Za-z0-9_.-]{0,199}$", t.name))])
    error_message = "Every table entry needs a `name` of letters, digits, '_', '.' or '-' (it becomes part of the table name)."
  }
  validation {
    condition     = try(length(distinct([for t in var.tables : t.name])) == length(var.tables), false)
    error_message = "Table entry names must be unique."
  }
  validation {
    condition     = alltrue([for t in var.tables : contains(["PROVISIONED", "PAY_PER_REQUEST"], try(t.billing_mode, ""))])
    error_message = "billing_mode must be PROVISIONED or PAY_PER_REQUEST in every table entry."
  }
  validation {
    condition = alltrue([for t in var.tables : try(t.billing_mode, "") != "PROVISIONED" || (
      try(t.read_capacity >= 1, false) && try(t.write_capacity >= 1, false)
    )])
    error_message = "A PROVISIONED table entry needs read_capacity >= 1 and write_capacity >= 1."
  }
  validation {
    condition = alltrue(flatten([for t in var.tables : concat(
      [try(contains(["S", "N", "B"], t.partition_key.type == false ? "N" : t.partition_key.type), false) && try(length(t.partition_key.name) > 0, false)],
      [try(t.sort_key, null) == null || try(contains(["S", "N", "B"], t.sort_key.type == false ? "N" : t.sort_key.type), false)],
      # A GSI key is one attribute or a list of one to four (multi-attribute keys).
      [for g in try([for g in t.gsis : g], []) : try(length(flatten([g.partition_key])) <= 4 && alltrue([
        for k in flatten([g.partition_key]) : contains(["S", "N", "B"], k.type == false ? "N" : k.type) && length(k.name) > 0
      ]), false)],
      [for g in try([for g in t.gsis : g], []) : try(length(flatten([for k in [try(g.sort_key, null)] : k if k != null])) <= 4 && alltrue([
        for k in flatten([for k in [try(g.sort_key, null)] : k if k != null]) : contains(["S", "N", "B"], k.type == false ? "N" : k.type) && length(k.name) > 0
      ]), false)],
    )]))
    # An unquoted `type: N` reaches Terraform as false: yamldecode follows YAML 1.1 booleans
    # (PyYAML does not), so false is read back as "N" here and in main.tf.
    error_message = "Every partition_key/sort_key (table and GSI) needs a name and a type of S, N or B; a GSI's may be a list of up to four such attributes."
  }
  validation {
    condition = alltrue(flatten([for t in var.tables : [
      for g in try([for g in t.gsis : g], []) : try(length(g.name) >= 3, false) && contains(["ALL", "KEYS_ONLY", "INCLUDE"], try(g.projection, "ALL"))
    ]]))
    error_message = "Every GSI needs a name of at least 3 characters and projection ALL, KEYS_ONLY or INCLUDE."
  }
  validation {
    condition = alltrue([for t in var.tables : try(t.contributor_insights, null) == null || contains(
      ["THROTTLED_KEYS", "ACCESSED_AND_THROTTLED_KEYS"], try(t.contributor_insights, "")
    )])
    error_message = "contributor_insights must be THROTTLED_KEYS or ACCESSED_AND_THROTTLED_KEYS (or absent)."
  }
  validation {
    condition     = alltrue([for t in var.tables : contains(["STANDARD", "STANDARD_INFREQUENT_ACCESS"], try(t.table_class, "STANDARD"))])
    error_message = "table_class must be STANDARD or STANDARD_INFREQUENT_ACCESS (or absent)."
  }
  validation {
    condition = alltrue([for t in var.tables : try(t.billing_mode, "") == "PAY_PER_REQUEST" || (
      try(t.on_demand_max, null) == null && alltrue([for g in try([for g in t.gsis : g], []) : try(g.on_demand_max, null) == null])
    )])
    error_message = "on_demand_max is only valid on PAY_PER_REQUEST tables and their GSIs."
  }
  validation {
    # The provider's warmThroughputSchema (IntAtLeast(12000) / IntAtLeast(4000)) and
    # DynamoDB refuse less, tables and GSIs alike; loadgen/format/playbook.py says the same.
    condition = alltrue(flatten([for t in var.tables : [
      for w in concat([try(t.warm_throughput, null)], [for g in try([for g in t.gsis : g], []) : try(g.warm_throughput, null)]) :
      (try(w.read, null) == null || try(w.read >= 12000, false)) && (try(w.write, null) == null || try(w.write >= 4000, false))
    ]]))
    error_message = "warm_throughput below DynamoDB's minimum: read must be at least 12000 and write at least 4000 units per second (table and GSIs). Omit a side to keep DynamoDB's own value."
  }
  validation {
    # Application Auto Scaling's bounds for DynamoDB target tracking; the emulator's
    # TargetTracking (emulator/autoscaling.py) refuses the same, so a playbook valid there is
    # valid here.
    condition = alltrue(flatten([for t in var.tables : [
      for a in concat([try(t.auto_scaling, null)], [for g in try([for g in t.gsis : g], []) : try(g.auto_scaling, null)]) : [
        for d in ["read", "write"] : try(a[d], null) == null || try(
          a[d].target_pct >= 20 && a[d].target_pct <= 90 && a[d].min >= 1 && a[d].max >= a[d].min, false
        )
      ] if a != null
    ]]))
    error_message = "auto_scaling read/write needs target_pct from 20 to 90, min at least 1 and max at least min (table and GSIs)."
  }
  validation {
    condition = alltrue([for t in var.tables : try(t.billing_mode, "") == "PROVISIONED" || (
      try(t.auto_scaling, null) == null && alltrue([for g in try([for g in t.gsis : g], []) : try(g.auto_scaling, null) == null])
    )])
    error_message = "auto_scaling is only valid on PROVISIONED tables and their GSIs (on demand scales by itself)."
  }
}

variable "variants" {
  description = "Names of the spec entries to create, in any order. null (the default) selects every entry."
  type        = list(string)
  default     = null

  validation {
    condition     = var.variants == null || try(alltrue([for v in var.variants : contains([for t in var.tables : t.name], v)]), false)
    error_message = "Every name in variants must be the name of a table entry in the spec."
  }
}

variable "run_id" {
  description = "Run identifier: lowercase letters, digits and '-', at most 24 characters, starting and ending with a letter or digit. Part of every resource name and the hotbench:run-id tag."
  type        = string

  validation {
    condition     = can(regex("^[a-z0-9]([a-z0-9-]{0,22}[a-z0-9])?$", var.run_id))
    error_message = "run_id must be 1-24 characters of lowercase letters, digits and '-', starting and ending with a letter or digit."
  }
}

variable "owner" {
  description = "Who to ask about these resources (e-mail or team); stored in the hotbench:owner tag."
  type        = string

  validation {
    condition     = can(regex("^[\\p{L}\\p{Z}\\p{N}_.:/=+\\-@]{1,256}$", var.owner))
    error_message = "owner must be 1-256 characters valid in an AWS tag value (letters, digits, spaces and _ . : / = + - @)."
  }
}

variable "expires_at" {
  description = "RFC 3339 time after which the resources may be deleted by anyone (e.g. 2025-06-01T18:00:00Z); stored in the hotbench:expires-at tag."
  type        = string

  validation {
    condition     = can(formatdate("YYYY", var.expires_at))
    error_message = "expires_at must be an RFC 3339 timestamp such as 2025-06-01T18:00:00Z."
  }
}

variable "tags" {
  description = "Extra tags merged under the hotbench:* tags (the hotbench:* keys always win)."
  type        = map(string)
  default     = {}
}
