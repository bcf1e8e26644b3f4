# Spec entry -> resource settings. Every rule that needs no AWS provider lives here so it
# is checked offline by `terraform test` (tests/*.tftest.hcl) and by the Python suite.

locals {
  # The least warm throughput DynamoDB and the AWS provider accept, for tables and GSIs of
  # both billing modes (`warmThroughputSchema`: IntAtLeast(12000) / IntAtLeast(4000)); also
  # what a new on-demand table or GSI starts with. loadgen/format/playbook.py enforces the same.
  warm_minimum = { read = 12000, write = 4000 }

  prefix = "hotbench-${var.run_id}"

  # One `for` with a filter: a conditional between two tuples of different lengths is a type error.
  wanted   = var.variants == null ? [for t in var.tables : t.name] : var.variants
  selected = [for t in var.tables : t if contains(local.wanted, t.name)]

  tags = merge(var.tags, {
    "hotbench:run-id"     = var.run_id
    "hotbench:owner"      = var.owner
    "hotbench:expires-at" = var.expires_at
    "hotbench:managed-by" = "terraform"
  })

  # GSIs, normalised: a missing or null `gsis` key is an empty list.
  gsis_raw = { for t in local.selected : t.name => try([for g in t.gsis : g], []) }

  # Each GSI's partition-key and sort-key attributes in key order. A key is one attribute
  # ({name, type}) or, for a multi-attribute key (DynamoDB, November 2025; the provider's
  # GSI `key_schema` blocks since 6.29.0, #45357), a list of up to four: flatten() takes
  # both shapes without a conditional between tuples of different lengths.
  gsi_keys = merge([for t in local.selected : { for g in local.gsis_raw[t.name] : "${t.name}/${g.name}" => {
    hash  = flatten([g.partition_key])
    range = flatten([for k in [try(g.sort_key, null)] : k if k != null])
  } }]...)

  # Every key attribute of a table and its GSIs, before dedupe. yamldecode reads an unquoted
  # `type: N` as the YAML 1.1 boolean false, so false means "N".
  key_attributes = { for t in local.selected : t.name => concat(
    [{ name = t.partition_key.name, type = t.partition_key.type == false ? "N" : t.partition_key.type }],
    try(t.sort_key.name, null) == null ? [] : [{ name = t.sort_key.name, type = t.sort_key.type == false ? "N" : t.sort_key.type }],
    flatten([for g in local.gsis_raw[t.name] : [
      for k in concat(local.gsi_keys["${t.name}/${g.name}"].hash, local.gsi_keys["${t.name}/${g.name}"].range) : { name = k.name, type = k.type == false ? "N" : k.type }
    ]]),
  ) }

  # name -> distinct types; more than one type for a name is a spec error (see outputs.tf).
  attribute_types = { for v, attrs in local.key_attributes : v => {
    for a in attrs : a.name => a.type...
  } }

  attributes = { for v, types in local.attribute_types : v => [
    for n in sort(keys(types)) : { name = n, type = types[n][0] }
  ] }

  attribute_conflicts = flatten([for v, types in local.attribute_types : [
    for n, ts in types : "${v}.${n}: ${join("/", distinct(ts))}" if length(distinct(ts)) > 1
  ]])

  settings = { for t in local.selected : t.name => {
    variant      = t.name
    name         = "${local.prefix}-${t.name}"
    billing_mode = t.billing_mode
    hash_key     = t.partition_key.name
    range_key    = try(t.sort_key.name, null)
    attributes   = local.attributes[t.name]

    # Capacity only means something in PROVISIONED mode; the provider rejects it otherwise.
    read_capacity  = t.billing_mode == "PROVISIONED" ? t.read_capacity : null
    write_capacity = t.billing_mode == "PROVISIONED" ? t.write_capacity : null

    on_demand_throughput = (
      t.billing_mode == "PAY_PER_REQUEST" && (try(t.on_demand_max.read, null) != null || try(t.on_demand_max.write, null) != null)
      ? { max_read_request_units = try(t.on_demand_max.read, null), max_write_request_units = try(t.on_demand_max.write, null) }
      : null
    )

    warm_throughput = local.warm[t.name]

    contributor_insights_mode = try(t.contributor_insights, null)

    # STANDARD unless the entry says STANDARD_INFREQUENT_ACCESS (the same throughput,
    # other prices: docs/cost.md). reserved_capacity is billing only: nothing to create.
    table_class = try(t.table_class, "STANDARD")

    auto_scaling = local.auto_scaling[t.name]

    gsis = [for g in local.gsis_raw[t.name] : {
      name = g.name
      # key_schema, not the hash_key/range_key deprecated since provider 6.29 (and the
      # "Unmatched indexes" error a GSI without a range key met in 6.29-6.40).
      # A multi-attribute key: every HASH element in order, then every RANGE element.
      key_schema = concat(
        [for k in local.gsi_keys["${t.name}/${g.name}"].hash : { attribute_name = k.name, key_type = "HASH" }],
        [for k in local.gsi_keys["${t.name}/${g.name}"].range : { attribute_name = k.name, key_type = "RANGE" }],
      )
      projection_type    = try(g.projection, "ALL")
      non_key_attributes = try(g.projection, "ALL") == "INCLUDE" ? try([for a in g.non_key_attributes : a], []) : null
      # A GSI without its own capacity gets the table's, the usual choice in the M1 playbooks.
      read_capacity  = t.billing_mode == "PROVISIONED" ? coalesce(try(g.read_capacity, null), t.read_capacity) : null
      write_capacity = t.billing_mode == "PROVISIONED" ? coalesce(try(g.write_capacity, null), t.write_capacity) : null
      on_demand_throughput = (
        t.billing_mode == "PAY_PER_REQUEST" && (try(g.on_demand_max.read, null) != null || try(g.on_demand_max.write, null) != null)
        ? { max_read_request_units = try(g.on_demand_max.read, null), max_write_request_units = try(g.on_demand_max.write, null) }
        : null
      )
      warm_throughput = local.warm["${t.name}/${g.name}"]
    }]
  } }

  # Warm throughput. A side left unset starts at the minimum (12,000 read / 4,000 write);
  # on a PROVISIONED table or GSI at its provisioned capacity when that is higher, which is
  # what DynamoDB gives it anyway. A request is raised to that floor, never below it, and
  # left null when no side asks for more (nothing to pre-warm: the table's own value is
  # used). After creation the values belong to DynamoDB and `hotbench prewarm`; the table
  # module ignores later changes so that a raise never plans a replacement.
  warm_inputs = merge(
    { for t in local.selected : t.name => {
      requested   = try(t.warm_throughput, null)
      provisioned = t.billing_mode == "PROVISIONED" ? { read = t.read_capacity, write = t.write_capacity } : { read = 0, write = 0 }
    } },
    merge([for t in local.selected : { for g in local.gsis_raw[t.name] : "${t.name}/${g.name}" => {
      requested = try(g.warm_throughput, null)
      provisioned = (
        t.billing_mode == "PROVISIONED"
        ? { read = coalesce(try(g.read_capacity, null), t.read_capacity), write = coalesce(try(g.write_capacity, null), t.write_capacity) }
        : { read = 0, write = 0 }
      )
    } }]...),
  )
  warm_floor = { for k, w in local.warm_inputs : k => {
    read  = max(local.warm_minimum.read, w.provisioned.read)
    write = max(local.warm_minimum.write, w.provisioned.write)
  } }
  warm = { for k, w in local.warm_inputs : k => (
    w.requested == null ? null : (
      coalesce(try(w.requested.read, null), 0) <= local.warm_floor[k].read &&
      coalesce(try(w.requested.write, null), 0) <= local.warm_floor[k].write
      ? null
      : {
        read_units_per_second  = max(coalesce(try(w.requested.read, null), 0), local.warm_floor[k].read)
        write_units_per_second = max(coalesce(try(w.requested.write, null), 0), local.warm_floor[k].write)
      }
    )
  ) }

  # Application Auto Scaling target tracking, one entry per scalable dimension of the table
  # and of each GSI (PROVISIONED only: loadgen/format/playbook.py refuses it on demand). The
  # fields are the playbook's (loadgen/format/capacity_spec.py), which the emulator's
  # AutoScalingSpec runs in the simulation: the policy applied is the policy modelled.
  auto_scaling_owners = { for t in local.selected : t.name => concat(
    [{ index_name = null, settings = try(t.auto_scaling, null) }],
    [for g in local.gsis_raw[t.name] : { index_name = g.name, settings = try(g.auto_scaling, null) }],
  ) }
  auto_scaling = { for t in local.selected : t.name => flatten([
    for o in local.auto_scaling_owners[t.name] : [
      for d in ["read", "write"] : {
        key                    = "${o.index_name == null ? "table" : "index-${o.index_name}"}-${d}"
        index_name             = o.index_name
        resource_suffix        = o.index_name == null ? "" : "/index/${o.index_name}"
        scalable_dimension     = "dynamodb:${o.index_name == null ? "table" : "index"}:${d == "read" ? "Read" : "Write"}CapacityUnits"
        predefined_metric_type = "DynamoDB${d == "read" ? "Read" : "Write"}CapacityUtilization"
        target_value           = o.settings[d].target_pct
        min_capacity           = o.settings[d].min
        max_capacity           = o.settings[d].max
        scale_in_cooldown      = try(o.settings[d].scale_in_cooldown_s, 0)
        scale_out_cooldown     = try(o.settings[d].scale_out_cooldown_s, 0)
        disable_scale_in       = try(o.settings[d].disable_scale_in, false)
      } if t.billing_mode == "PROVISIONED" && try(o.settings[d], null) != null
    ]
  ]) }

  names = {
    prefix                = local.prefix
    results_table         = "${local.prefix}-results"
    cluster               = "${local.prefix}-fleet"
    task_family           = "${local.prefix}-worker"
    ecr_repository        = "${local.prefix}-worker"
    log_group             = "/hotbench/${var.run_id}/worker"
    task_role             = "${local.prefix}-task"
    execution_role        = "${local.prefix}-task-exec"
    security_group        = "${local.prefix}-workers"
    dashboard             = local.prefix
    dynamodb_vpc_endpoint = "${local.prefix}-dynamodb"
    image_build           = "${local.prefix}-image"
    build_role            = "${local.prefix}-build"
    backstop_group        = "${local.prefix}-backstop"
    backstop_role         = "${local.prefix}-backstop"
    lambda_function       = "${local.prefix}-worker"
    lambda_role           = "${local.prefix}-function"
    # Lambda writes to /aws/lambda/<function name>: the kit makes that group, so it carries
    # the run's tags and retention and goes with the destroy
    lambda_log_group = "/aws/lambda/${local.prefix}-worker"
  }
}
