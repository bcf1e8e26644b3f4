# Offline tests of the dashboard JSON. Run: terraform init && terraform test

variables {
  dashboard_name = "hotbench-t1"
  region         = "eu-west-1"
  tables = {
    bad     = { name = "hotbench-t1-bad", gsis = [] }
    goodGsi = { name = "hotbench-t1-goodGsi", gsis = ["byWarehouse", "byPrice"] }
  }
}

run "one_pair_of_widgets_per_table_and_gsi" {
  command = plan

  assert {
    condition     = length(output.widgets) == 2 * (2 + 2)
    error_message = "Expected a capacity and a throttle widget for 2 tables + 2 GSIs."
  }
  assert {
    condition     = length(jsondecode(output.body).widgets) == 8
    error_message = "The JSON body must hold the same widgets."
  }
}

run "all_throttle_causes" {
  command = plan

  assert {
    condition = toset(output.throttle_metrics) == toset([
      "ReadKeyRangeThroughputThrottleEvents", "ReadProvisionedThroughputThrottleEvents",
      "ReadMaxOnDemandThroughputThrottleEvents", "ReadAccountLimitThrottleEvents",
      "WriteKeyRangeThroughputThrottleEvents", "WriteProvisionedThroughputThrottleEvents",
      "WriteMaxOnDemandThroughputThrottleEvents", "WriteAccountLimitThrottleEvents",
    ])
    error_message = "Every throttle cause, read and write, must be charted."
  }
  assert {
    condition     = alltrue([for w in output.widgets : length(w.properties.metrics) == 8 if strcontains(w.properties.title, "throttle")])
    error_message = "Each throttle widget charts the 8 causes."
  }
}

run "gsi_dimension" {
  command = plan

  assert {
    condition = contains(
      [for w in output.widgets : w.properties.metrics[0] if strcontains(w.properties.title, "throttle")],
      ["AWS/DynamoDB", "ReadKeyRangeThroughputThrottleEvents", "TableName", "hotbench-t1-goodGsi", "GlobalSecondaryIndexName", "byPrice"]
    )
    error_message = "GSI widgets must use the GlobalSecondaryIndexName dimension."
  }
  assert {
    condition = contains(
      [for w in output.widgets : w.properties.metrics[0] if strcontains(w.properties.title, "throttle")],
      ["AWS/DynamoDB", "ReadKeyRangeThroughputThrottleEvents", "TableName", "hotbench-t1-bad"]
    )
    error_message = "Table widgets use only the TableName dimension."
  }
  assert {
    condition     = output.url == "https://eu-west-1.console.aws.amazon.com/cloudwatch/home?region=eu-west-1#dashboards/dashboard/hotbench-t1"
    error_message = "Dashboard URL must point at the run's dashboard in its region."
  }
}

run "capacity_per_second" {
  command = plan

  assert {
    condition     = alltrue([for w in output.widgets : anytrue([for m in w.properties.metrics : try(m[0].expression, "") == "m0/PERIOD(m0)"]) if strcontains(w.properties.title, "capacity")])
    error_message = "Capacity widgets must show units per second (Sum / PERIOD)."
  }
}
