output "actions" {
  description = "The DynamoDB data-plane actions a worker calls (no control plane)."
  value       = local.data_plane_actions
}

output "resources" {
  description = "This run's tables, their indexes (/index/*) and its results table: nothing else."
  value       = local.data_plane_resources
}
