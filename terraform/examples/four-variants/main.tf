# The four M1 variants (bad, good, goodGsi, badOnDemand) of playbooks/hot-partition.yaml,
# the results table, the dashboard and a 4-task worker fleet: the root stack's defaults.
module "hotbench" {
  source = "../.."

  run_id     = var.run_id
  owner      = var.owner
  expires_at = var.expires_at
  region     = var.region
  task_count = 4
}
