# The Lambda fleet: one function the console invokes once per worker and window
# (loadgen/live/lambda_invokes.py), with its role and its log group. No cluster, no image,
# no VPC: the function reaches DynamoDB's public endpoint with its role's credentials.
# Permissions are cut to this run's tables and its own logs.

# Data-plane only, the same actions and resources as the ECS fleet's task role.
module "data_plane" {
  source = "../worker-data-plane"

  table_arns        = var.table_arns
  results_table_arn = var.results_table_arn
}

resource "aws_cloudwatch_log_group" "this" {
  #checkov:skip=CKV_AWS_158:Worker logs hold progress lines only; the CloudWatch-managed key avoids a KMS key per run.
  #checkov:skip=CKV_AWS_338:Benchmark logs are short-lived by design; retention is a variable (default 7 days) to keep costs and leftovers down.
  name              = var.names.lambda_log_group
  retention_in_days = var.log_retention_days
  tags              = var.tags
}

data "aws_iam_policy_document" "assume_lambda" {
  statement {
    actions = ["sts:AssumeRole"]

    principals {
      type        = "Service"
      identifiers = ["lambda.amazonaws.com"]
    }
  }
}

resource "aws_iam_role" "function" {
  name               = var.names.lambda_role
  description        = "hotbench worker function: data-plane access to this run's tables and its own logs"
  assume_role_policy = data.aws_iam_policy_document.assume_lambda.json
  tags               = var.tags
}

data "aws_iam_policy_document" "function" {
  statement {
    sid       = "RunTablesDataPlane"
    actions   = module.data_plane.actions
    resources = module.data_plane.resources
  }

  statement {
    sid       = "WriteWorkerLogs"
    actions   = ["logs:CreateLogStream", "logs:PutLogEvents"]
    resources = ["${aws_cloudwatch_log_group.this.arn}:*"]
  }
}

resource "aws_iam_role_policy" "function" {
  name   = "dynamodb-data-plane-and-logs"
  role   = aws_iam_role.function.id
  policy = data.aws_iam_policy_document.function.json
}

resource "aws_lambda_function" "worker" {
  #checkov:skip=CKV_AWS_116:No dead-letter queue: the console invokes synchronously (RequestResponse) and reads each answer; nothing is retried or queued.
  #checkov:skip=CKV_AWS_117:Not in a VPC on purpose: the worker reaches DynamoDB's public endpoint, as the study's Lambda runners did; a VPC needs NAT or endpoints per run.
  #checkov:skip=CKV_AWS_173:The environment holds the run id, the results table's name and the region: no secret to encrypt with a customer key.
  #checkov:skip=CKV_AWS_272:Code signing would need a signing profile per account; the package is built from this repository at `up`, its SHA-256 in source_code_hash.
  #checkov:skip=CKV_AWS_115:Concurrency is the console's to keep (it invokes one per worker and window); reserving it would take it from the account's other functions.
  #checkov:skip=CKV_AWS_50:X-Ray tracing is billed per trace; the worker measures every request itself.
  function_name    = var.names.lambda_function
  description      = "hotbench worker (loadgen.live.lambda_handler): one worker's window of a run"
  role             = aws_iam_role.function.arn
  runtime          = "python3.12"
  handler          = "loadgen.live.lambda_handler.handler"
  filename         = var.package
  source_code_hash = var.package_hash
  memory_size      = var.memory
  timeout          = var.timeout
  architectures    = [var.cpu_architecture == "ARM64" ? "arm64" : "x86_64"]

  environment {
    variables = var.environment
  }

  logging_config {
    log_format = "Text"
    log_group  = aws_cloudwatch_log_group.this.name
  }

  tags = var.tags

  depends_on = [aws_iam_role_policy.function]
}
