output "variant" {
  description = "The spec entry's name."
  value       = var.table.name
}

output "name" {
  description = "Table name (hotbench-<run_id>-<variant>)."
  value       = aws_dynamodb_table.this.name
}

output "arn" {
  description = "Table ARN; the worker task role is scoped to it and to <arn>/index/*."
  value       = aws_dynamodb_table.this.arn
}

output "gsis" {
  description = "Names of the table's global secondary indexes, in spec order."
  value       = [for g in local.s.gsis : g.name]
}

output "settings" {
  description = "The computed settings the table was created from (see modules/spec output `tables`)."
  value       = local.s
}
