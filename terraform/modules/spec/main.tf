# Spec entry -> resource settings. Every rule that needs no AWS provider lives here so it
# is checked offline by `terraform test` (tests/*.tftest.hcl) and by the Python suite.

locals {
  # DynamoDB's own warm throughput for a new on-demand table or GSI. Setting exactly these
  # values gives a permanent plan diff, so a request at or below them is left unset.
  on_demand_warm_default = { read = 12000, write = 4000 }

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

  # Every key attribute of a table and its GSIs, before dedupe. yamldecode reads an unquoted
  # `type: N` as the YAML 1.1 boolean false, so false means "N".
  key_attributes = { for t in local.selected : t.name => concat(
    [{ name = t.partition_key.name, type = t.partition_key.type == false ? "N" : t.partition_key.type }],
    try(t.sort_key.name, null) == null ? [] : [{ name = t.sort_key.name, type = t.sort_key.type == false ? "N" : t.sort_key.type }],
    flatten([for g in local.gsis_raw[t.name] : concat(
      [{ name = g.partition_key.name, type = g.partition_key.type == false ? "N" : g.partition_key.type }],
      try(g.sort_key.name, null) == null ? [] : [{ name = g.sort_key.name, type = g.sort_key.type == false ? "N" : g.sort_key.type }],
    )]),
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

    warm_throughput = local.table_warm[t.name]

    contributor_insights_mode = try(t.contributor_insights, null)

    gsis = [for g in local.gsis_raw[t.name] : {
      name               = g.name
      hash_key           = g.partition_key.name
      range_key          = try(g.sort_key.name, null)
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
      warm_throughput = local.gsi_warm["${t.name}/${g.name}"]
    }]
  } }

  # Warm throughput "defaults": what DynamoDB gives for free. On-demand: 12,000/4,000;
  # provisioned: the provisioned capacity. Requests are raised to at least the default
  # (warm values cannot be lowered) and left unset when nothing is above it.
  table_warm_default = { for t in local.selected : t.name => (
    t.billing_mode == "PROVISIONED" ? { read = t.read_capacity, write = t.write_capacity } : local.on_demand_warm_default
  ) }
  table_warm = { for t in local.selected : t.name => (
    try(t.warm_throughput, null) == null ? null : (
      coalesce(try(t.warm_throughput.read, null), 0) <= local.table_warm_default[t.name].read &&
      coalesce(try(t.warm_throughput.write, null), 0) <= local.table_warm_default[t.name].write
      ? null
      : {
        read_units_per_second  = max(coalesce(try(t.warm_throughput.read, null), 0), local.table_warm_default[t.name].read)
        write_units_per_second = max(coalesce(try(t.warm_throughput.write, null), 0), local.table_warm_default[t.name].write)
      }
    )
  ) }

  gsi_warm_inputs = merge([for t in local.selected : { for g in local.gsis_raw[t.name] : "${t.name}/${g.name}" => {
    requested = try(g.warm_throughput, null)
    default = (
      t.billing_mode == "PROVISIONED"
      ? { read = coalesce(try(g.read_capacity, null), t.read_capacity), write = coalesce(try(g.write_capacity, null), t.write_capacity) }
      : local.on_demand_warm_default
    )
  } }]...)
  gsi_warm = { for k, w in local.gsi_warm_inputs : k => (
    w.requested == null ? null : (
      coalesce(try(w.requested.read, null), 0) <= w.default.read && coalesce(try(w.requested.write, null), 0) <= w.default.write
      ? null
      : {
        read_units_per_second  = max(coalesce(try(w.requested.read, null), 0), w.default.read)
        write_units_per_second = max(coalesce(try(w.requested.write, null), 0), w.default.write)
      }
    )
  ) }

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
  }
}
