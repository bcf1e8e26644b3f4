# The load-generator fleet: a cluster and a task definition the console starts with
# RunTask (no ECS service: a run is a batch of tasks that must all start, sync on the
# results table and exit). Permissions are cut to this run's tables.

locals {
  use_default_vpc = length(var.subnet_ids) == 0
  subnet_ids      = local.use_default_vpc ? data.aws_subnets.default[0].ids : var.subnet_ids
  # one(): null when the region has no default VPC; the precondition below then says so.
  vpc_id         = local.use_default_vpc ? one(data.aws_vpcs.default[0].ids) : data.aws_subnet.first[0].vpc_id
  image          = coalesce(var.image, "${aws_ecr_repository.this.repository_url}:latest")
  container_name = "worker"

  # The run's own repository, plus the private ECR repository `image` names, if any: an
  # image from another repository could not start with only the run's repository allowed.
  pull_repository_arns = concat(
    [aws_ecr_repository.this.arn],
    module.task.ecr_repository_arn == null ? [] : [module.task.ecr_repository_arn],
  )
}

# The workers' data-plane actions and resources, shared with modules/lambda-fleet.
module "data_plane" {
  source = "../worker-data-plane"

  table_arns        = var.table_arns
  results_table_arn = var.results_table_arn
}

# CPU/memory checked as a pair against AWS's Fargate table, and the image's repository:
# provider-free, so both are tested offline.
module "task" {
  source = "../fargate-task"

  cpu    = var.cpu
  memory = var.memory
  image  = var.image
}

# aws_vpcs, not aws_vpc: a plural lookup finds nothing without failing, so an account
# without a default VPC gets the message below instead of "no matching EC2 VPC found".
data "aws_vpcs" "default" {
  count = local.use_default_vpc ? 1 : 0

  filter {
    name   = "is-default"
    values = ["true"]
  }
}

data "aws_subnets" "default" {
  count = local.use_default_vpc ? 1 : 0

  filter {
    name   = "vpc-id"
    values = [local.vpc_id]
  }

  filter {
    name   = "default-for-az"
    values = ["true"]
  }

  lifecycle {
    precondition {
      condition     = length(data.aws_vpcs.default[0].ids) == 1
      error_message = "This region has no default VPC and no subnet_ids were given: pass the worker subnets, e.g. -var 'subnet_ids=[\"subnet-0abc...\", \"subnet-0def...\"]' (private subnets need a NAT gateway or VPC endpoints for ECR, CloudWatch Logs and DynamoDB), or create a default VPC with `aws ec2 create-default-vpc`."
    }
  }
}

data "aws_subnet" "first" {
  count = local.use_default_vpc ? 0 : 1
  id    = var.subnet_ids[0]
}

data "aws_route_tables" "vpc" {
  count  = var.create_dynamodb_vpc_endpoint && length(var.route_table_ids) == 0 ? 1 : 0
  vpc_id = local.vpc_id
}

resource "aws_ecs_cluster" "this" {
  #checkov:skip=CKV_AWS_65:Container Insights is charged per metric; run metrics come from the results table and the DynamoDB dashboard.
  name = var.names.cluster
  tags = var.tags
}

resource "aws_ecr_repository" "this" {
  #checkov:skip=CKV_AWS_51:Per-run repository destroyed with the run; tasks start from the :latest tag the operator pushes, and may re-push while iterating.
  #checkov:skip=CKV_AWS_136:AES256 (the ECR default) is enough for a public-code benchmark image; a KMS key per run adds cost and cleanup.
  name                 = var.names.ecr_repository
  image_tag_mutability = "MUTABLE"
  force_delete         = true # destroy must not stop on pushed images

  image_scanning_configuration {
    scan_on_push = true
  }

  tags = var.tags
}

resource "aws_cloudwatch_log_group" "this" {
  #checkov:skip=CKV_AWS_158:Worker logs hold progress lines only; the CloudWatch-managed key avoids a KMS key per run.
  #checkov:skip=CKV_AWS_338:Benchmark logs are short-lived by design; retention is a variable (default 7 days) to keep costs and leftovers down.
  name              = var.names.log_group
  retention_in_days = var.log_retention_days
  tags              = var.tags
}

data "aws_iam_policy_document" "assume_ecs_tasks" {
  statement {
    actions = ["sts:AssumeRole"]

    principals {
      type        = "Service"
      identifiers = ["ecs-tasks.amazonaws.com"]
    }
  }
}

resource "aws_iam_role" "task" {
  name               = var.names.task_role
  description        = "hotbench worker: data-plane access to this run's tables only"
  assume_role_policy = data.aws_iam_policy_document.assume_ecs_tasks.json
  tags               = var.tags
}

data "aws_iam_policy_document" "task" {
  statement {
    sid       = "RunTablesDataPlane"
    actions   = module.data_plane.actions
    resources = module.data_plane.resources
  }
}

resource "aws_iam_role_policy" "task" {
  name   = "dynamodb-data-plane"
  role   = aws_iam_role.task.id
  policy = data.aws_iam_policy_document.task.json
}

resource "aws_iam_role" "execution" {
  name               = var.names.execution_role
  description        = "hotbench worker: pull the image and write logs"
  assume_role_policy = data.aws_iam_policy_document.assume_ecs_tasks.json
  tags               = var.tags
}

data "aws_iam_policy_document" "execution" {
  #checkov:skip=CKV_AWS_356:ecr:GetAuthorizationToken has no resource-level permissions; AWS requires "*" for it.
  #checkov:skip=CKV_AWS_111:The only "*" statement is ecr:GetAuthorizationToken, which supports no resource-level permissions.
  statement {
    sid       = "EcrLogin"
    actions   = ["ecr:GetAuthorizationToken"]
    resources = ["*"]
  }

  statement {
    sid       = "PullWorkerImage"
    actions   = ["ecr:BatchCheckLayerAvailability", "ecr:BatchGetImage", "ecr:GetDownloadUrlForLayer"]
    resources = local.pull_repository_arns
  }

  statement {
    sid       = "WriteWorkerLogs"
    actions   = ["logs:CreateLogStream", "logs:PutLogEvents"]
    resources = ["${aws_cloudwatch_log_group.this.arn}:*"]
  }
}

resource "aws_iam_role_policy" "execution" {
  name   = "pull-and-log"
  role   = aws_iam_role.execution.id
  policy = data.aws_iam_policy_document.execution.json
}

resource "aws_ecs_task_definition" "this" {
  family                   = var.names.task_family
  requires_compatibilities = ["FARGATE"]
  network_mode             = "awsvpc"
  cpu                      = module.task.cpu
  memory                   = module.task.memory
  task_role_arn            = aws_iam_role.task.arn
  execution_role_arn       = aws_iam_role.execution.arn

  runtime_platform {
    operating_system_family = "LINUX"
    cpu_architecture        = var.cpu_architecture
  }

  container_definitions = jsonencode([{
    name                   = local.container_name
    image                  = local.image
    essential              = true
    readonlyRootFilesystem = true
    environment            = [for k in sort(keys(var.environment)) : { name = k, value = var.environment[k] }]
    logConfiguration = {
      logDriver = "awslogs"
      options = {
        awslogs-group         = aws_cloudwatch_log_group.this.name
        awslogs-region        = var.region
        awslogs-stream-prefix = local.container_name
      }
    }
  }])

  tags = var.tags
}

resource "aws_security_group" "workers" {
  #checkov:skip=CKV2_AWS_5:Attached to the tasks at RunTask time by the console, not to a resource Terraform manages.
  name        = var.names.security_group
  description = "hotbench workers: no inbound, HTTPS out to AWS APIs only"
  vpc_id      = local.vpc_id

  egress {
    description = "HTTPS to DynamoDB, ECR and CloudWatch Logs endpoints"
    from_port   = 443
    to_port     = 443
    protocol    = "tcp"
    cidr_blocks = ["0.0.0.0/0"]
  }

  tags = merge(var.tags, { Name = var.names.security_group })
}

resource "aws_vpc_endpoint" "dynamodb" {
  count = var.create_dynamodb_vpc_endpoint ? 1 : 0

  vpc_id            = local.vpc_id
  service_name      = "com.amazonaws.${var.region}.dynamodb"
  vpc_endpoint_type = "Gateway"
  route_table_ids   = length(var.route_table_ids) > 0 ? var.route_table_ids : data.aws_route_tables.vpc[0].ids

  tags = merge(var.tags, { Name = var.names.dynamodb_vpc_endpoint })
}
