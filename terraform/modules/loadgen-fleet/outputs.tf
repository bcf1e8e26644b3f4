output "cluster_arn" {
  description = "ECS cluster ARN for RunTask."
  value       = aws_ecs_cluster.this.arn
}

output "cluster_name" {
  description = "ECS cluster name."
  value       = aws_ecs_cluster.this.name
}

output "task_definition_arn" {
  description = "Worker task definition ARN (with revision) for RunTask."
  value       = aws_ecs_task_definition.this.arn
}

output "container_name" {
  description = "Name of the worker container, for RunTask container overrides."
  value       = local.container_name
}

output "image" {
  description = "Image the task definition runs."
  value       = local.image
}

output "ecr_repository_url" {
  description = "Push the worker image here (docker push <url>:latest) when image is null."
  value       = aws_ecr_repository.this.repository_url
}

output "ecr_repository_arn" {
  description = "ARN of the run's repository (the in-account image build may push only here)."
  value       = aws_ecr_repository.this.arn
}

output "subnet_ids" {
  description = "Subnets to pass to RunTask's awsvpcConfiguration."
  value       = local.subnet_ids
}

output "security_group_id" {
  description = "Security group to pass to RunTask's awsvpcConfiguration (egress HTTPS only)."
  value       = aws_security_group.workers.id
}

output "security_group_ids" {
  description = "Security groups to pass to RunTask: the given ones, or this module's own."
  value       = length(var.security_group_ids) > 0 ? var.security_group_ids : [aws_security_group.workers.id]
}

output "assign_public_ip" {
  description = "Whether RunTask must assign a public IP: as given, else true on the default VPC's public subnets, which have no NAT."
  value       = coalesce(var.assign_public_ip, local.use_default_vpc)
}

output "vpc_id" {
  description = "VPC the tasks run in."
  value       = local.vpc_id
}

output "log_group_name" {
  description = "CloudWatch log group of the workers."
  value       = aws_cloudwatch_log_group.this.name
}

output "log_group_arn" {
  description = "ARN of the workers' log group (the image build writes its stream there too)."
  value       = aws_cloudwatch_log_group.this.arn
}

output "task_role_arn" {
  description = "Role the workers run as (data-plane actions on this run's tables only)."
  value       = aws_iam_role.task.arn
}

output "execution_role_arn" {
  description = "Role ECS uses to pull the image and write logs."
  value       = aws_iam_role.execution.arn
}

output "cpu_architecture" {
  description = "X86_64 or ARM64."
  value       = var.cpu_architecture
}
