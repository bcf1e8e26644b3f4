output "name" {
  description = "Results table name (workers get it in HOTBENCH_RESULTS_TABLE)."
  value       = aws_dynamodb_table.this.name
}

output "arn" {
  description = "Results table ARN."
  value       = aws_dynamodb_table.this.arn
}
