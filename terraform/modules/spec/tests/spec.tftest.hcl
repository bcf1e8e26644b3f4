# Offline tests of the spec -> settings rules (no provider, `command = plan` only).
# Run: cd terraform/modules/spec && terraform init && terraform test

variables {
  run_id     = "t1"
  owner      = "platform@example.com"
  expires_at = "2030-01-01T00:00:00Z"
  tables = [
    {
      name           = "prov"
      partition_key  = { name = "pk", type = "S" }
      sort_key       = { name = "sk", type = "S" }
      billing_mode   = "PROVISIONED"
      read_capacity  = 100
      write_capacity = 200
      gsis = [
        { name = "bySk", partition_key = { name = "sk", type = "S" }, sort_key = { name = "pk", type = "S" }, projection = "ALL" },
        { name = "byPrice", partition_key = { name = "sk", type = "S" }, sort_key = { name = "price", type = "N" }, projection = "INCLUDE", non_key_attributes = ["qty"], read_capacity = 5, write_capacity = 7 },
      ]
    },
    {
      name          = "od"
      partition_key = { name = "pk", type = "S" }
      billing_mode  = "PAY_PER_REQUEST"
      # Exactly the on-demand defaults: must stay unset (permanent diff otherwise).
      warm_throughput      = { read = 12000, write = 4000 }
      contributor_insights = "THROTTLED_KEYS"
      table_class          = "STANDARD_INFREQUENT_ACCESS"
    },
    {
      name            = "warm"
      partition_key   = { name = "pk", type = "N" }
      billing_mode    = "PAY_PER_REQUEST"
      warm_throughput = { read = null, write = 8000 }
      on_demand_max   = { read = null, write = 5000 }
      gsis = [
        { name = "byX", partition_key = { name = "x", type = "B" }, projection = "KEYS_ONLY", warm_throughput = { read = 20000, write = null }, on_demand_max = { read = 100, write = null } },
      ]
    },
  ]
}

run "names_and_tags" {
  command = plan

  assert {
    condition     = output.tables["prov"].name == "hotbench-t1-prov" && output.tables["od"].name == "hotbench-t1-od"
    error_message = "Table names must be hotbench-<run_id>-<variant>."
  }
  assert {
    condition     = output.tags["hotbench:run-id"] == "t1" && output.tags["hotbench:owner"] == "platform@example.com" && output.tags["hotbench:expires-at"] == "2030-01-01T00:00:00Z"
    error_message = "Tags must carry run id, owner and expiry."
  }
  assert {
    condition     = output.names.results_table == "hotbench-t1-results" && output.names.cluster == "hotbench-t1-fleet"
    error_message = "Shared resource names must derive from run_id."
  }
  assert {
    condition     = output.variants == ["prov", "od", "warm"]
    error_message = "All variants are selected by default, in spec order."
  }
}

run "attribute_dedupe" {
  command = plan

  assert {
    condition     = output.tables["prov"].attributes == [{ name = "pk", type = "S" }, { name = "price", type = "N" }, { name = "sk", type = "S" }]
    error_message = "Attributes must be deduplicated across table and GSIs, sorted by name."
  }
  assert {
    condition     = output.tables["od"].attributes == [{ name = "pk", type = "S" }]
    error_message = "A hash-only table has exactly one attribute."
  }
  assert {
    condition     = output.tables["warm"].attributes == [{ name = "pk", type = "N" }, { name = "x", type = "B" }]
    error_message = "GSI-only key attributes must be defined too."
  }
}

run "capacity_only_when_provisioned" {
  command = plan

  assert {
    condition     = output.tables["prov"].read_capacity == 100 && output.tables["prov"].write_capacity == 200
    error_message = "PROVISIONED capacity must pass through."
  }
  assert {
    condition     = output.tables["od"].read_capacity == null && output.tables["od"].write_capacity == null
    error_message = "PAY_PER_REQUEST tables must have no capacity."
  }
  assert {
    condition     = output.tables["prov"].gsis[0].read_capacity == 100 && output.tables["prov"].gsis[0].write_capacity == 200
    error_message = "A GSI without capacity inherits the table's."
  }
  assert {
    condition     = output.tables["prov"].gsis[1].read_capacity == 5 && output.tables["prov"].gsis[1].write_capacity == 7
    error_message = "A GSI's own capacity wins."
  }
  assert {
    condition     = output.tables["warm"].gsis[0].read_capacity == null
    error_message = "GSIs of on-demand tables have no capacity."
  }
}

run "warm_throughput" {
  command = plan

  assert {
    condition     = output.tables["od"].warm_throughput == null
    error_message = "Warm throughput equal to the on-demand defaults must be left unset."
  }
  assert {
    condition     = output.tables["prov"].warm_throughput == null
    error_message = "No warm_throughput key -> unset."
  }
  assert {
    condition     = output.tables["warm"].warm_throughput == { read_units_per_second = 12000, write_units_per_second = 8000 }
    error_message = "A raised warm throughput is set, the missing side at its default."
  }
  assert {
    condition     = output.tables["warm"].gsis[0].warm_throughput == { read_units_per_second = 20000, write_units_per_second = 4000 }
    error_message = "A GSI's unset warm side is set at the minimum (4,000 write)."
  }
}

run "gsi_key_schema" {
  command = plan

  assert {
    condition = output.tables["prov"].gsis[1].key_schema == [
      { attribute_name = "sk", key_type = "HASH" },
      { attribute_name = "price", key_type = "RANGE" },
    ]
    error_message = "A GSI's keys are a key_schema list: HASH then RANGE."
  }
  assert {
    condition     = output.tables["warm"].gsis[0].key_schema == [{ attribute_name = "x", key_type = "HASH" }]
    error_message = "A GSI without a sort key has a HASH-only key_schema (no empty range key)."
  }
  assert {
    condition     = alltrue([for t in output.tables : alltrue([for g in t.gsis : !contains(keys(g), "hash_key") && !contains(keys(g), "range_key")])])
    error_message = "GSIs must not carry the deprecated hash_key/range_key."
  }
}

# Multi-attribute GSI keys (DynamoDB, November 2025): a key given as a list of up to four
# attributes becomes one HASH (or RANGE) element each, in order; every one is declared.
run "multi_attribute_gsi_key_schema" {
  command = plan

  variables {
    tables = [
      {
        name          = "scores"
        partition_key = { name = "id", type = "S" }
        billing_mode  = "PAY_PER_REQUEST"
        gsis = [
          {
            name          = "byTournamentRegion"
            partition_key = [{ name = "tournament", type = "S" }, { name = "region", type = "S" }]
            sort_key      = [{ name = "score", type = "N" }, { name = "at", type = "S" }]
          },
          { name = "byTournament", partition_key = { name = "tournament", type = "S" } },
        ]
      },
    ]
  }

  assert {
    condition = output.tables["scores"].gsis[0].key_schema == [
      { attribute_name = "tournament", key_type = "HASH" },
      { attribute_name = "region", key_type = "HASH" },
      { attribute_name = "score", key_type = "RANGE" },
      { attribute_name = "at", key_type = "RANGE" },
    ]
    error_message = "A multi-attribute key is every HASH element in order, then every RANGE element."
  }
  assert {
    condition     = output.tables["scores"].gsis[1].key_schema == [{ attribute_name = "tournament", key_type = "HASH" }]
    error_message = "A one-attribute GSI key beside a multi-attribute one keeps its own shape."
  }
  assert {
    condition = output.tables["scores"].attributes == [
      { name = "at", type = "S" }, { name = "id", type = "S" }, { name = "region", type = "S" },
      { name = "score", type = "N" }, { name = "tournament", type = "S" },
    ]
    error_message = "Every attribute of a multi-attribute key is declared once."
  }
}

# Warm values for both billing modes, tables and GSIs, given one side, both or none: never
# below the provider's minimum (12,000 read / 4,000 write), whatever the capacity.
run "warm_never_below_minimum" {
  command = plan

  variables {
    tables = [
      {
        name            = "provWrite"
        partition_key   = { name = "pk", type = "S" }
        billing_mode    = "PROVISIONED"
        read_capacity   = 1000
        write_capacity  = 20
        warm_throughput = { write = 20000 }
        gsis = [
          { name = "gRead", partition_key = { name = "a", type = "S" }, warm_throughput = { read = 15000 } },
          { name = "gBoth", partition_key = { name = "a", type = "S" }, warm_throughput = { read = 30000, write = 9000 } },
          { name = "gNone", partition_key = { name = "a", type = "S" }, warm_throughput = { read = null, write = null } },
          { name = "gBigCapacity", partition_key = { name = "a", type = "S" }, read_capacity = 20000, write_capacity = 5000, warm_throughput = { write = 6000 } },
          { name = "gUnset", partition_key = { name = "a", type = "S" } },
        ]
      },
      {
        name            = "provBoth"
        partition_key   = { name = "pk", type = "S" }
        billing_mode    = "PROVISIONED"
        read_capacity   = 5
        write_capacity  = 5
        warm_throughput = { read = 13000, write = 4500 }
      },
      {
        name            = "odRead"
        partition_key   = { name = "pk", type = "S" }
        billing_mode    = "PAY_PER_REQUEST"
        warm_throughput = { read = 50000 }
        gsis = [
          { name = "gWrite", partition_key = { name = "a", type = "S" }, warm_throughput = { write = 5000 } },
          { name = "gNone", partition_key = { name = "a", type = "S" }, warm_throughput = {} },
          { name = "gMinimum", partition_key = { name = "a", type = "S" }, warm_throughput = { read = 12000, write = 4000 } },
        ]
      },
      {
        name            = "odNone"
        partition_key   = { name = "pk", type = "S" }
        billing_mode    = "PAY_PER_REQUEST"
        warm_throughput = {}
      },
    ]
  }

  assert {
    condition = alltrue(flatten([for t in output.tables : [
      for w in concat([t.warm_throughput], [for g in t.gsis : g.warm_throughput]) :
      w == null || (w.read_units_per_second >= 12000 && w.write_units_per_second >= 4000)
    ]]))
    error_message = "Every warm value set must be at least 12,000 read and 4,000 write units per second."
  }
  assert {
    condition     = output.tables["provWrite"].warm_throughput == { read_units_per_second = 12000, write_units_per_second = 20000 }
    error_message = "PROVISIONED, write only: read is set at 12,000, not at the 1,000 RCU provisioned."
  }
  assert {
    condition     = output.tables["provWrite"].gsis[0].warm_throughput == { read_units_per_second = 15000, write_units_per_second = 4000 }
    error_message = "PROVISIONED GSI, read only: write is set at 4,000, not at the 20 WCU provisioned."
  }
  assert {
    condition     = output.tables["provWrite"].gsis[1].warm_throughput == { read_units_per_second = 30000, write_units_per_second = 9000 }
    error_message = "Both sides given above the minimum pass through."
  }
  assert {
    condition     = output.tables["provWrite"].gsis[2].warm_throughput == null && output.tables["provWrite"].gsis[4].warm_throughput == null
    error_message = "No side given (or no warm_throughput at all): left to DynamoDB."
  }
  assert {
    condition     = output.tables["provWrite"].gsis[3].warm_throughput == { read_units_per_second = 20000, write_units_per_second = 6000 }
    error_message = "A provisioned capacity above the minimum is the floor of the unset side."
  }
  assert {
    condition     = output.tables["provBoth"].warm_throughput == { read_units_per_second = 13000, write_units_per_second = 4500 }
    error_message = "PROVISIONED, both sides: passed through."
  }
  assert {
    condition     = output.tables["odRead"].warm_throughput == { read_units_per_second = 50000, write_units_per_second = 4000 }
    error_message = "PAY_PER_REQUEST, read only: write is set at 4,000."
  }
  assert {
    condition     = output.tables["odRead"].gsis[0].warm_throughput == { read_units_per_second = 12000, write_units_per_second = 5000 }
    error_message = "PAY_PER_REQUEST GSI, write only: read is set at 12,000."
  }
  assert {
    condition     = output.tables["odRead"].gsis[1].warm_throughput == null && output.tables["odRead"].gsis[2].warm_throughput == null && output.tables["odNone"].warm_throughput == null
    error_message = "An empty warm_throughput, or exactly the minimum, is left to DynamoDB."
  }
}

run "table_warm_below_minimum_rejected" {
  command = plan

  variables {
    tables = [{ name = "x", partition_key = { name = "pk", type = "S" }, billing_mode = "PAY_PER_REQUEST", warm_throughput = { read = 1000 } }]
  }

  expect_failures = [var.tables]
}

run "gsi_warm_below_minimum_rejected" {
  command = plan

  variables {
    tables = [{
      name           = "x"
      partition_key  = { name = "pk", type = "S" }
      billing_mode   = "PROVISIONED"
      read_capacity  = 1
      write_capacity = 1
      gsis           = [{ name = "byA", partition_key = { name = "a", type = "S" }, warm_throughput = { read = 12000, write = 3999 } }]
    }]
  }

  expect_failures = [var.tables]
}

run "on_demand_and_insights" {
  command = plan

  assert {
    condition     = output.tables["warm"].on_demand_throughput == { max_read_request_units = null, max_write_request_units = 5000 }
    error_message = "on_demand_max maps to on_demand_throughput, null sides omitted."
  }
  assert {
    condition     = output.tables["od"].on_demand_throughput == null && output.tables["prov"].on_demand_throughput == null
    error_message = "No on_demand_max -> no on_demand_throughput block."
  }
  assert {
    condition     = output.tables["warm"].gsis[0].on_demand_throughput.max_read_request_units == 100
    error_message = "GSI on_demand_max must pass through."
  }
  assert {
    condition     = output.tables["od"].contributor_insights_mode == "THROTTLED_KEYS" && output.tables["prov"].contributor_insights_mode == null
    error_message = "contributor_insights maps to the mode, absent -> null."
  }
  assert {
    condition     = output.tables["prov"].gsis[1].non_key_attributes == ["qty"] && output.tables["prov"].gsis[0].non_key_attributes == null
    error_message = "non_key_attributes only for INCLUDE projections."
  }
}

run "table_class" {
  command = plan

  assert {
    condition     = output.tables["od"].table_class == "STANDARD_INFREQUENT_ACCESS" && output.tables["prov"].table_class == "STANDARD"
    error_message = "table_class passes through; absent means STANDARD."
  }
}

run "variant_selection" {
  command = plan

  variables {
    variants = ["od"]
  }

  assert {
    condition     = keys(output.tables) == ["od"] && output.variants == ["od"]
    error_message = "Only the selected variants are produced."
  }
}

run "unknown_variant_rejected" {
  command = plan

  variables {
    variants = ["nope"]
  }

  expect_failures = [var.variants]
}

run "bad_run_id_rejected" {
  command = plan

  variables {
    run_id = "Has_Upper-and-way-too-long-for-names"
  }

  expect_failures = [var.run_id]
}

run "provisioned_without_capacity_rejected" {
  command = plan

  variables {
    tables = [{ name = "x", partition_key = { name = "pk", type = "S" }, billing_mode = "PROVISIONED" }]
  }

  expect_failures = [var.tables]
}

run "conflicting_attribute_types_rejected" {
  command = plan

  variables {
    tables = [{
      name          = "x"
      partition_key = { name = "pk", type = "S" }
      billing_mode  = "PAY_PER_REQUEST"
      gsis          = [{ name = "byPk", partition_key = { name = "pk", type = "N" }, projection = "ALL" }]
    }]
  }

  expect_failures = [output.tables]
}

run "yaml_boolean_n_is_number_type" {
  command = plan

  # yamldecode turns an unquoted `type: N` into false (YAML 1.1); it must still mean N.
  variables {
    tables = [{ name = "x", partition_key = { name = "pk", type = false }, billing_mode = "PAY_PER_REQUEST" }]
  }

  assert {
    condition     = output.tables["x"].attributes == [{ name = "pk", type = "N" }]
    error_message = "A boolean false key type must be read as N."
  }
}

run "auto_scaling_per_dimension" {
  command = plan

  variables {
    tables = [
      {
        name           = "scaled"
        partition_key  = { name = "pk", type = "S" }
        billing_mode   = "PROVISIONED"
        read_capacity  = 5
        write_capacity = 100
        auto_scaling   = { write = { target_pct = 70, min = 100, max = 10000, scale_in_cooldown_s = 60 } }
        gsis = [
          { name = "byX", partition_key = { name = "x", type = "S" }, auto_scaling = { read = { target_pct = 50, min = 5, max = 50, disable_scale_in = true } } },
        ]
      },
      { name = "fixed", partition_key = { name = "pk", type = "S" }, billing_mode = "PROVISIONED", read_capacity = 5, write_capacity = 5 },
    ]
  }

  assert {
    condition     = [for a in output.tables["scaled"].auto_scaling : a.key] == ["table-write", "index-byX-read"]
    error_message = "One entry per scalable dimension: the table's, then each GSI's."
  }
  assert {
    condition = (
      output.tables["scaled"].auto_scaling[0].scalable_dimension == "dynamodb:table:WriteCapacityUnits" &&
      output.tables["scaled"].auto_scaling[0].predefined_metric_type == "DynamoDBWriteCapacityUtilization" &&
      output.tables["scaled"].auto_scaling[0].target_value == 70 &&
      output.tables["scaled"].auto_scaling[0].min_capacity == 100 &&
      output.tables["scaled"].auto_scaling[0].scale_in_cooldown == 60 &&
      output.tables["scaled"].auto_scaling[0].scale_out_cooldown == 0 &&
      output.tables["scaled"].auto_scaling[0].disable_scale_in == false
    )
    error_message = "The table's write policy maps the playbook's fields, defaults as Application Auto Scaling's."
  }
  assert {
    condition = (
      output.tables["scaled"].auto_scaling[1].scalable_dimension == "dynamodb:index:ReadCapacityUnits" &&
      output.tables["scaled"].auto_scaling[1].resource_suffix == "/index/byX" &&
      output.tables["scaled"].auto_scaling[1].predefined_metric_type == "DynamoDBReadCapacityUtilization" &&
      output.tables["scaled"].auto_scaling[1].disable_scale_in == true
    )
    error_message = "A GSI's policy targets table/<name>/index/<gsi>."
  }
  assert {
    condition     = length(output.tables["fixed"].auto_scaling) == 0
    error_message = "A variant without auto_scaling gets no scaling target."
  }
}

run "auto_scaling_out_of_bounds_rejected" {
  command = plan

  variables {
    tables = [{ name = "t", partition_key = { name = "pk", type = "S" }, billing_mode = "PROVISIONED", read_capacity = 5, write_capacity = 5, auto_scaling = { write = { target_pct = 95, min = 5, max = 50 } } }]
  }
  expect_failures = [var.tables]
}

run "auto_scaling_on_demand_rejected" {
  command = plan

  variables {
    tables = [{ name = "t", partition_key = { name = "pk", type = "S" }, billing_mode = "PAY_PER_REQUEST", auto_scaling = { write = { target_pct = 70, min = 5, max = 50 } } }]
  }
  expect_failures = [var.tables]
}
