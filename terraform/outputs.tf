output "hotbench" {
  description = "Everything the hotbench console needs, as one JSON-friendly object (terraform output -json hotbench)."
  value = {
    run_id = var.run_id
    region = var.region
    tables = { for v, t in module.table : v => {
      name = t.name
      arn  = t.arn
      gsis = t.gsis
    } }
    results_table = {
      name = module.results_table.name
      arn  = module.results_table.arn
    }
    cluster_arn          = try(module.fleet[0].cluster_arn, null)
    task_definition_arn  = try(module.fleet[0].task_definition_arn, null)
    container_name       = try(module.fleet[0].container_name, null)
    image                = try(module.fleet[0].image, null)
    ecr_repository_url   = try(module.fleet[0].ecr_repository_url, null)
    subnets              = try(module.fleet[0].subnet_ids, [])
    security_group_id    = try(module.fleet[0].security_group_id, null)
    security_group_ids   = try(module.fleet[0].security_group_ids, [])
    assign_public_ip     = try(module.fleet[0].assign_public_ip, false)
    log_group_name       = try(module.fleet[0].log_group_name, module.lambda_fleet[0].log_group_name, null)
    task_count           = var.task_count
    task_cpu             = var.task_cpu
    task_memory          = var.task_memory
    cpu_architecture     = var.cpu_architecture
    dashboard_url        = try(module.dashboard[0].url, null)
    backstop_group       = try(module.backstop[0].group_name, null)
    backstop_role_arn    = try(module.backstop[0].role_arn, null)
    backstop_at          = try(module.backstop[0].at, null)
    fleet                = var.create_fleet ? var.fleet : null
    lambda_function_name = try(module.lambda_fleet[0].function_name, null)
    lambda_function_arn  = try(module.lambda_fleet[0].function_arn, null)
    lambda_role_name     = try(module.lambda_fleet[0].role_name, null)
    lambda_log_group     = try(module.lambda_fleet[0].log_group_name, null)
    image_build_project  = try(module.image_build[0].project_name, null)
    image_source_bucket  = try(module.image_build[0].source_bucket, null)
    tags                 = module.spec.tags
  }
}
