# One CloudWatch dashboard per run: consumed capacity and throttle events by cause, per
# table and per GSI. The JSON is built by the provider-free modules/dashboard-body.
# Dashboards cost $3/month each past the first three of the account (prorated by hour).

module "body" {
  source = "../dashboard-body"

  dashboard_name = var.dashboard_name
  region         = var.region
  tables         = var.tables
}

resource "aws_cloudwatch_dashboard" "this" {
  dashboard_name = var.dashboard_name
  dashboard_body = module.body.body
}
