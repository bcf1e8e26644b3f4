# Dashboard JSON for a run, kept provider-free so `terraform test` can check offline
# which metrics, causes and dimensions it shows.

locals {
  # Every throttle cause DynamoDB publishes per table and per GSI (since 2025), so a
  # chart tells a hot key (KeyRange) from too little capacity, an on-demand maximum or
  # the account quota.
  throttle_causes = ["KeyRangeThroughput", "ProvisionedThroughput", "MaxOnDemandThroughput", "AccountLimit"]
  throttle_metrics = flatten([for op in ["Read", "Write"] : [
    for cause in local.throttle_causes : "${op}${cause}ThrottleEvents"
  ]])
  capacity_metrics = ["ConsumedWriteCapacityUnits", "ConsumedReadCapacityUnits"]

  # One panel per table and per GSI, in variant order.
  panels = flatten([for v in sort(keys(var.tables)) : concat(
    [{ title = v, table = var.tables[v].name, index = null }],
    [for g in var.tables[v].gsis : { title = "${v} / ${g}", table = var.tables[v].name, index = g }],
  )])

  dimensions = [for p in local.panels : concat(
    ["TableName", p.table],
    p.index == null ? [] : ["GlobalSecondaryIndexName", p.index],
  )]

  widgets = flatten([for i, p in local.panels : [
    {
      type   = "metric"
      x      = 0
      y      = i * 6
      width  = 12
      height = 6
      properties = {
        title  = "${p.title}: consumed capacity units per second"
        region = var.region
        view   = "timeSeries"
        period = var.period
        stat   = "Sum"
        metrics = concat(
          [for j, m in local.capacity_metrics : concat(["AWS/DynamoDB", m], local.dimensions[i], [{ id = "m${j}", visible = false }])],
          [for j, m in local.capacity_metrics : [{ expression = "m${j}/PERIOD(m${j})", label = "${m} per s", id = "e${j}" }]],
        )
      }
    },
    {
      type   = "metric"
      x      = 12
      y      = i * 6
      width  = 12
      height = 6
      properties = {
        title   = "${p.title}: throttle events by cause"
        region  = var.region
        view    = "timeSeries"
        period  = var.period
        stat    = "Sum"
        metrics = [for m in local.throttle_metrics : concat(["AWS/DynamoDB", m], local.dimensions[i])]
      }
    },
  ]])
}
