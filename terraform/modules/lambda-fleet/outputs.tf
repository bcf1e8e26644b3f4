output "function_name" {
  description = "The worker function the console invokes (once per worker and window)."
  value       = aws_lambda_function.worker.function_name
}

output "function_arn" {
  description = "ARN of the worker function."
  value       = aws_lambda_function.worker.arn
}

output "role_name" {
  description = "The function's role (data plane of this run's tables, its own logs)."
  value       = aws_iam_role.function.name
}

output "log_group_name" {
  description = "The function's log group (/aws/lambda/<function name>)."
  value       = aws_cloudwatch_log_group.this.name
}

output "log_group_arn" {
  description = "ARN of the function's log group."
  value       = aws_cloudwatch_log_group.this.arn
}
