# hotbench root stack: the variant tables of ONE spec file, a results table, a dashboard
# and (optionally) the load-generator fleet (`fleet`: Lambda or ECS Fargate), all named
# hotbench-<run_id>-* and tagged hotbench:run-id=<run_id>. `terraform destroy` with the
# same run_id removes everything.

locals {
  spec_file = coalesce(var.spec_file, "${path.module}/../playbooks/hot-partition.yaml")
  spec      = yamldecode(file(local.spec_file))
}

provider "aws" {
  region = var.region

  # Every taggable resource gets the run's tags, also ones a module forgets.
  default_tags {
    tags = module.spec.tags
  }
}

module "spec" {
  source = "./modules/spec"

  tables     = local.spec.tables
  variants   = var.variants
  run_id     = var.run_id
  owner      = var.owner
  expires_at = var.expires_at
  tags       = var.tags
}

# First at apply, last at destroy: no table of the run exists without it.
module "backstop" {
  source = "./modules/backstop"
  count  = var.create_backstop ? 1 : 0

  names  = { backstop_group = module.spec.names.backstop_group, backstop_role = module.spec.names.backstop_role }
  region = var.region
  at     = timeadd(var.expires_at, "${var.backstop_delay_minutes}m")
  tables = merge(
    { for v, e in module.spec.entries : v => e.name },
    { results = module.spec.names.results_table },
  )
  cluster_name   = module.spec.names.cluster
  dashboard_name = var.create_dashboard ? module.spec.names.dashboard : null
  tags           = module.spec.tags
}

module "table" {
  source   = "./modules/table"
  for_each = module.spec.entries

  depends_on = [module.backstop]

  table      = each.value
  run_id     = var.run_id
  owner      = var.owner
  expires_at = var.expires_at
  tags       = var.tags
}

module "results_table" {
  source = "./modules/results-table"

  depends_on = [module.backstop]

  name = module.spec.names.results_table
  tags = module.spec.tags
}

module "dashboard" {
  source = "./modules/dashboard"
  count  = var.create_dashboard ? 1 : 0

  dashboard_name = module.spec.names.dashboard
  region         = var.region
  tables         = { for v, t in module.table : v => { name = t.name, gsis = t.gsis } }
}

module "fleet" {
  source = "./modules/loadgen-fleet"
  count  = var.create_fleet && var.fleet == "ecs" ? 1 : 0

  names             = module.spec.names
  region            = var.region
  table_arns        = [for v in module.spec.variants : module.table[v].arn]
  results_table_arn = module.results_table.arn

  image            = var.worker_image
  cpu              = var.task_cpu
  memory           = var.task_memory
  cpu_architecture = var.cpu_architecture
  # What loadgen/live/worker.py reads, and nothing else: the tables and the rest of the run
  # come from the plan item in the results table.
  environment = merge(var.worker_environment, {
    HOTBENCH_RUN_ID        = var.run_id
    HOTBENCH_RESULTS_TABLE = module.results_table.name
    AWS_REGION             = var.region
  })
  log_retention_days           = var.log_retention_days
  subnet_ids                   = var.subnet_ids
  security_group_ids           = var.security_group_ids
  assign_public_ip             = var.assign_public_ip
  create_dynamodb_vpc_endpoint = var.create_dynamodb_vpc_endpoint
  tags                         = module.spec.tags
}

module "lambda_fleet" {
  source = "./modules/lambda-fleet"
  count  = var.create_fleet && var.fleet == "lambda" ? 1 : 0

  names             = module.spec.names
  table_arns        = [for v in module.spec.variants : module.table[v].arn]
  results_table_arn = module.results_table.arn

  package          = var.lambda_package
  package_hash     = var.lambda_package_hash
  memory           = var.lambda_memory
  timeout          = var.lambda_timeout
  cpu_architecture = var.cpu_architecture
  # What loadgen/live/worker.py reads: the run id of each table run, its windows and the
  # worker index come in each invocation's event (loadgen/live/lambda_handler.py).
  environment = merge(var.worker_environment, {
    HOTBENCH_RUN_ID        = var.run_id
    HOTBENCH_RESULTS_TABLE = module.results_table.name
  })
  log_retention_days = var.log_retention_days
  tags               = module.spec.tags
}

module "image_build" {
  source = "./modules/image-build"
  count  = var.create_fleet && var.fleet == "ecs" && var.image_build ? 1 : 0

  run_id           = var.run_id
  names            = { prefix = module.spec.names.prefix, image_build = module.spec.names.image_build, build_role = module.spec.names.build_role }
  repository_url   = module.fleet[0].ecr_repository_url
  repository_arn   = module.fleet[0].ecr_repository_arn
  log_group_name   = module.fleet[0].log_group_name
  log_group_arn    = module.fleet[0].log_group_arn
  cpu_architecture = var.cpu_architecture
  tags             = module.spec.tags
}
