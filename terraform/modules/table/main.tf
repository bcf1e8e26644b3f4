# One DynamoDB table from one spec entry. All the decisions (names, attribute dedupe,
# capacity only when PROVISIONED, warm throughput left unset at the defaults) are made in
# the provider-free modules/spec, which is tested offline; this file only maps them.

module "spec" {
  source = "../spec"

  tables     = [var.table]
  run_id     = var.run_id
  owner      = var.owner
  expires_at = var.expires_at
  tags       = var.tags
}

locals {
  s = module.spec.tables[var.table.name]

  # Target tracking per scalable dimension of the table and its GSIs (modules/spec).
  scaling = { for a in local.s.auto_scaling : a.key => a }

  # Contributor insights for the table and each of its GSIs, when the spec asks for it.
  # "#table" cannot collide with a GSI name ([a-zA-Z0-9_.-]+).
  # A filtered `for` rather than `cond ? {} : {...}`: objects of different shapes do not unify.
  insights = {
    for k, v in merge({ "#table" = { index_name = null } }, { for g in local.s.gsis : g.name => { index_name = g.name } }) :
    k => v if local.s.contributor_insights_mode != null
  }
}

resource "aws_dynamodb_table" "this" {
  #checkov:skip=CKV_AWS_28:Benchmark tables live for hours and hold generated data; point-in-time recovery would only add cost.
  #checkov:skip=CKV_AWS_119:Generated benchmark data; the AWS-owned key avoids a KMS key per run and KMS request charges.
  name                        = local.s.name
  billing_mode                = local.s.billing_mode
  hash_key                    = local.s.hash_key
  range_key                   = local.s.range_key
  read_capacity               = local.s.read_capacity
  write_capacity              = local.s.write_capacity
  table_class                 = local.s.table_class
  deletion_protection_enabled = false

  dynamic "attribute" {
    for_each = local.s.attributes
    content {
      name = attribute.value.name
      type = attribute.value.type
    }
  }

  dynamic "on_demand_throughput" {
    for_each = local.s.on_demand_throughput != null ? [local.s.on_demand_throughput] : []
    content {
      max_read_request_units  = on_demand_throughput.value.max_read_request_units
      max_write_request_units = on_demand_throughput.value.max_write_request_units
    }
  }

  dynamic "warm_throughput" {
    for_each = local.s.warm_throughput != null ? [local.s.warm_throughput] : []
    content {
      read_units_per_second  = warm_throughput.value.read_units_per_second
      write_units_per_second = warm_throughput.value.write_units_per_second
    }
  }

  dynamic "global_secondary_index" {
    for_each = local.s.gsis
    content {
      name               = global_secondary_index.value.name
      projection_type    = global_secondary_index.value.projection_type
      non_key_attributes = global_secondary_index.value.non_key_attributes
      read_capacity      = global_secondary_index.value.read_capacity
      write_capacity     = global_secondary_index.value.write_capacity

      dynamic "key_schema" {
        for_each = global_secondary_index.value.key_schema
        content {
          attribute_name = key_schema.value.attribute_name
          key_type       = key_schema.value.key_type
        }
      }

      dynamic "on_demand_throughput" {
        for_each = global_secondary_index.value.on_demand_throughput != null ? [global_secondary_index.value.on_demand_throughput] : []
        content {
          max_read_request_units  = on_demand_throughput.value.max_read_request_units
          max_write_request_units = on_demand_throughput.value.max_write_request_units
        }
      }

      dynamic "warm_throughput" {
        for_each = global_secondary_index.value.warm_throughput != null ? [global_secondary_index.value.warm_throughput] : []
        content {
          read_units_per_second  = warm_throughput.value.read_units_per_second
          write_units_per_second = warm_throughput.value.write_units_per_second
        }
      }
    }
  }

  tags = module.spec.tags

  lifecycle {
    # Warm throughput only goes up, and not only through Terraform: DynamoDB raises it as
    # traffic grows and `hotbench prewarm` raises it before a run. The provider replaces
    # the table when the configured table value is below the current one, and re-creates
    # an index for a GSI's, so a re-apply after a run would plan to destroy the table.
    # The spec's values are used at creation only; raises go through prewarm (UpdateTable).
    # GSIs are a set, so the whole block is ignored: a GSI change in the spec needs a new
    # run (destroy and apply), which README.md says.
    # Provisioned capacity moves after creation too: Application Auto Scaling sets it on
    # a variant with auto_scaling, and a playbook's capacity-change phase by UpdateTable;
    # a re-apply must not set it back under them (a new capacity needs a new run).
    ignore_changes = [warm_throughput, global_secondary_index, read_capacity, write_capacity]
  }
}

resource "aws_dynamodb_contributor_insights" "this" {
  for_each = local.insights

  table_name = aws_dynamodb_table.this.name
  index_name = each.value.index_name
  mode       = local.s.contributor_insights_mode
}

# Application Auto Scaling target tracking, when the variant has `auto_scaling` (table and
# each GSI, reads and writes apart): the policy the simulation and the emulator run
# (emulator/autoscaling.py). DynamoDB creates the CloudWatch alarms behind it.
resource "aws_appautoscaling_target" "this" {
  for_each = local.scaling

  service_namespace  = "dynamodb"
  resource_id        = "table/${aws_dynamodb_table.this.name}${each.value.resource_suffix}"
  scalable_dimension = each.value.scalable_dimension
  min_capacity       = each.value.min_capacity
  max_capacity       = each.value.max_capacity
  tags               = module.spec.tags
}

resource "aws_appautoscaling_policy" "this" {
  for_each = local.scaling

  name               = "${local.s.name}-${each.key}"
  policy_type        = "TargetTrackingScaling"
  service_namespace  = aws_appautoscaling_target.this[each.key].service_namespace
  resource_id        = aws_appautoscaling_target.this[each.key].resource_id
  scalable_dimension = aws_appautoscaling_target.this[each.key].scalable_dimension

  target_tracking_scaling_policy_configuration {
    target_value       = each.value.target_value
    scale_in_cooldown  = each.value.scale_in_cooldown
    scale_out_cooldown = each.value.scale_out_cooldown
    disable_scale_in   = each.value.disable_scale_in

    predefined_metric_specification {
      predefined_metric_type = each.value.predefined_metric_type
    }
  }
}
