output "cpu" {
  description = "Task CPU units, as the task definition takes them (a string)."
  value       = tostring(var.cpu)
}

output "memory" {
  description = "Task memory in MiB, as the task definition takes it (a string)."
  value       = tostring(var.memory)
}

output "ecr_repository_arn" {
  description = "ARN of the private ECR repository `image` is pulled from; null for no image or a non-ECR image (public registries need no pull permission)."
  value       = local.ecr == null ? null : "arn:${local.ecr_partition}:ecr:${local.ecr.region}:${local.ecr.account}:repository/${local.ecr.name}"
}
