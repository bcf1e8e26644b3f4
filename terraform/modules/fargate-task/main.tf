# Worker task settings that need no AWS provider: the Fargate CPU/memory pair and the
# ECR repository the worker image is pulled from. modules/loadgen-fleet uses both.

locals {
  # Fargate's valid task sizes: CPU units -> memory in MiB. Source: AWS, Amazon ECS API
  # Reference, RegisterTaskDefinition, parameter `memory`
  # (https://docs.aws.amazon.com/AmazonECS/latest/APIReference/API_RegisterTaskDefinition.html),
  # the same table as "Task CPU and memory" in the Amazon ECS Developer Guide
  # (https://docs.aws.amazon.com/AmazonECS/latest/developerguide/fargate-tasks-services.html#fargate-tasks-size).
  # 8192 and 16384 CPU need Linux platform 1.4.0 or later (LATEST is).
  fargate_memory_mib = {
    "256"   = [512, 1024, 2048]
    "512"   = range(1024, 4096 + 1, 1024)    # 1-4 GB in 1 GB steps
    "1024"  = range(2048, 8192 + 1, 1024)    # 2-8 GB in 1 GB steps
    "2048"  = range(4096, 16384 + 1, 1024)   # 4-16 GB in 1 GB steps
    "4096"  = range(8192, 30720 + 1, 1024)   # 8-30 GB in 1 GB steps
    "8192"  = range(16384, 61440 + 1, 4096)  # 16-60 GB in 4 GB steps
    "16384" = range(32768, 122880 + 1, 8192) # 32-120 GB in 8 GB steps
  }

  # <account>.dkr.ecr[-fips].<region>.amazonaws.com[.cn]/<repository>[:tag][@digest]
  ecr = var.image == null ? null : try(regex(
    "^(?P<account>[0-9]{12})\\.dkr\\.ecr(?:-fips)?\\.(?P<region>[a-z0-9-]+)\\.amazonaws\\.com(?P<china>\\.cn)?/(?P<name>[a-z0-9][a-z0-9._/-]*?)(?::[A-Za-z0-9_.-]+)?(?:@sha256:[0-9a-f]{64})?$",
    var.image,
  ), null)
  ecr_partition = local.ecr == null ? null : (
    local.ecr.china != null && local.ecr.china != "" ? "aws-cn" : startswith(local.ecr.region, "us-gov-") ? "aws-us-gov" : "aws"
  )
}
