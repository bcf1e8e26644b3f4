output "name" {
  description = "Dashboard name."
  value       = aws_cloudwatch_dashboard.this.dashboard_name
}

output "arn" {
  description = "Dashboard ARN."
  value       = aws_cloudwatch_dashboard.this.dashboard_arn
}

output "url" {
  description = "Console URL of the dashboard."
  value       = module.body.url
}
