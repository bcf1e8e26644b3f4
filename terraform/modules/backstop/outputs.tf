output "group_name" {
  description = "The schedule group: the console adds a StopTask schedule per worker task to it."
  value       = aws_scheduler_schedule_group.this.name
}

output "role_arn" {
  description = "The role the schedules act as (the console's per-task schedules pass it too)."
  value       = aws_iam_role.this.arn
}

output "at" {
  description = "When the schedules act (RFC 3339, UTC)."
  value       = var.at
}
