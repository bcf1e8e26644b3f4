# The backstop: EventBridge Scheduler one-time schedules, in the account, that delete the
# run's tables (and its dashboard) at `at`, whether or not the operator's machine is
# still there to run `down`. The console adds one schedule per worker task (StopTask) to
# the same group as it starts them. Schedules call the AWS API directly ("universal
# targets", arn:aws:scheduler:::aws-sdk:SERVICE:apiAction, with the API's request as
# Input: https://docs.aws.amazon.com/scheduler/latest/UserGuide/managing-targets-universal.html)
# with a role that may do exactly that, to this run's resources only.
#
# The root stack creates this module first and destroys it last (the tables depend on
# it), so no table exists without its backstop. Deleting the group deletes every
# schedule in it, the console's ones too.

data "aws_caller_identity" "this" {}

data "aws_partition" "this" {}

locals {
  account   = data.aws_caller_identity.this.account_id
  partition = data.aws_partition.this.partition
  # at(yyyy-mm-ddThh:mm:ss) in UTC: a one-time schedule
  # (https://docs.aws.amazon.com/scheduler/latest/UserGuide/schedule-types.html#one-time)
  at = "at(${formatdate("YYYY-MM-DD'T'hh:mm:ss", var.at)})"
  table_arns = {
    for key, name in var.tables : key => "arn:${local.partition}:dynamodb:${var.region}:${local.account}:table/${name}"
  }
}

resource "aws_scheduler_schedule_group" "this" {
  name = var.names.backstop_group
  tags = var.tags
}

data "aws_iam_policy_document" "assume_scheduler" {
  statement {
    actions = ["sts:AssumeRole"]

    principals {
      type        = "Service"
      identifiers = ["scheduler.amazonaws.com"]
    }

    # Only this account's schedules may use the role (the confused-deputy guard of
    # https://docs.aws.amazon.com/scheduler/latest/UserGuide/setting-up.html#setting-up-execution-role).
    condition {
      test     = "StringEquals"
      variable = "aws:SourceAccount"
      values   = [local.account]
    }
  }
}

resource "aws_iam_role" "this" {
  name               = var.names.backstop_role
  description        = "hotbench backstop: delete this run's tables and stop its tasks at its deadline"
  assume_role_policy = data.aws_iam_policy_document.assume_scheduler.json
  tags               = var.tags
}

data "aws_iam_policy_document" "this" {
  statement {
    sid       = "DeleteRunTables"
    actions   = ["dynamodb:DeleteTable"]
    resources = values(local.table_arns)
  }

  statement {
    sid       = "StopRunTasks"
    actions   = ["ecs:StopTask"]
    resources = ["arn:${local.partition}:ecs:${var.region}:${local.account}:task/${var.cluster_name}/*"]
  }

  dynamic "statement" {
    for_each = var.dashboard_name == null ? [] : [var.dashboard_name]

    content {
      sid       = "DeleteRunDashboard"
      actions   = ["cloudwatch:DeleteDashboards"]
      resources = ["arn:${local.partition}:cloudwatch::${local.account}:dashboard/${statement.value}"]
    }
  }
}

resource "aws_iam_role_policy" "this" {
  name   = "delete-run-at-deadline"
  role   = aws_iam_role.this.id
  policy = data.aws_iam_policy_document.this.json
}

resource "aws_scheduler_schedule" "delete_table" {
  #checkov:skip=CKV_AWS_297:The Input holds only a table name; a KMS key per run would add cost and a key that outlives the run (a pending deletion of 7 days).
  for_each = var.tables

  # A schedule's name: 1-64 of [0-9a-zA-Z-_.], unique in its group.
  name                         = substr("delete-${each.key}", 0, 64)
  group_name                   = aws_scheduler_schedule_group.this.name
  description                  = "hotbench: delete ${each.value} at the run's deadline"
  schedule_expression          = local.at
  schedule_expression_timezone = "UTC"

  flexible_time_window {
    mode = "OFF"
  }

  target {
    arn      = "arn:${local.partition}:scheduler:::aws-sdk:dynamodb:deleteTable"
    role_arn = aws_iam_role.this.arn
    input    = jsonencode({ TableName = each.value })

    # A table still UPDATING refuses DeleteTable (ResourceInUseException): retry for
    # a day (Scheduler's maximum event age, 24 h; at most 185 attempts).
    retry_policy {
      maximum_event_age_in_seconds = 86400
      maximum_retry_attempts       = 185
    }
  }

  # the role may act before the schedule can fire
  depends_on = [aws_iam_role_policy.this]
}

resource "aws_scheduler_schedule" "delete_dashboard" {
  #checkov:skip=CKV_AWS_297:The Input holds only a dashboard name; a KMS key per run would add cost and a key that outlives the run.
  count = var.dashboard_name == null ? 0 : 1

  name                         = "delete-dashboard"
  group_name                   = aws_scheduler_schedule_group.this.name
  description                  = "hotbench: delete the run's dashboard at its deadline"
  schedule_expression          = local.at
  schedule_expression_timezone = "UTC"

  flexible_time_window {
    mode = "OFF"
  }

  target {
    arn      = "arn:${local.partition}:scheduler:::aws-sdk:cloudwatch:deleteDashboards"
    role_arn = aws_iam_role.this.arn
    input    = jsonencode({ DashboardNames = [var.dashboard_name] })

    retry_policy {
      maximum_event_age_in_seconds = 86400
      maximum_retry_attempts       = 185
    }
  }

  depends_on = [aws_iam_role_policy.this]
}
