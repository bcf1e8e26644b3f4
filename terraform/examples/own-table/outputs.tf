output "hotbench" {
  description = "What the hotbench console needs (tables, cluster, task definition, subnets, dashboard URL)."
  value       = module.hotbench.hotbench
}
