# A team's own table definitions (my-table.yaml, or the file -var spec_file=... names, such
# as the best.yaml of `hotbench optimize`) instead of the M1 playbook, with a smaller 2-task
# worker fleet.
module "hotbench" {
  source = "../.."

  spec_file  = coalesce(var.spec_file, "${path.module}/my-table.yaml")
  run_id     = var.run_id
  owner      = var.owner
  expires_at = var.expires_at
  region     = var.region
  task_count = 2
}
