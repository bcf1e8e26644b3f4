output "project_name" {
  description = "The CodeBuild project the console starts builds of."
  value       = aws_codebuild_project.image.name
}

output "source_bucket" {
  description = "The S3 bucket the console uploads the worker's sources to."
  value       = aws_s3_bucket.source.bucket
}
