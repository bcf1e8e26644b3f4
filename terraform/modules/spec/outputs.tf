output "tables" {
  description = "Selected variant name -> settings for modules/table: name, billing_mode, hash_key, range_key, attributes (deduplicated, sorted by name), read/write_capacity (null unless PROVISIONED), on_demand_throughput, warm_throughput (null when at the free defaults), contributor_insights_mode, gsis."
  value       = local.settings

  precondition {
    condition     = length(local.attribute_conflicts) == 0
    error_message = "A key attribute is declared with different types: ${join(", ", local.attribute_conflicts)}."
  }
}

output "entries" {
  description = "Selected variant name -> the raw spec entry, for modules that take one entry (modules/table)."
  value       = { for t in local.selected : t.name => t }
}

output "variants" {
  description = "Selected variant names in spec order."
  value       = [for t in local.selected : t.name]
}

output "tags" {
  description = "Tags every resource of the run carries: var.tags plus hotbench:run-id, hotbench:owner, hotbench:expires-at, hotbench:managed-by."
  value       = local.tags
}

output "names" {
  description = "Names of the run's shared resources (results table, cluster, roles, log group, ...), all derived from run_id."
  value       = local.names
}
