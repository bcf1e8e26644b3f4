output "body" {
  description = "Dashboard body JSON for aws_cloudwatch_dashboard.dashboard_body."
  value       = jsonencode({ widgets = local.widgets })
}

output "widgets" {
  description = "The widgets as a Terraform value (for tests and for callers that add their own)."
  value       = local.widgets
}

output "throttle_metrics" {
  description = "Throttle-by-cause metric names shown for every table and GSI."
  value       = local.throttle_metrics
}

output "url" {
  description = "Console URL of the dashboard."
  value       = "https://${var.region}.console.aws.amazon.com/cloudwatch/home?region=${var.region}#dashboards/dashboard/${var.dashboard_name}"
}
