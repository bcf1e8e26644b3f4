# Offline tests of the Fargate size rules and the image -> repository reading
# (no provider, `command = plan` only). Run: terraform init && terraform test

variables {
  cpu    = 1024
  memory = 2048
}

run "default_pair_and_no_image" {
  command = plan

  assert {
    condition     = output.cpu == "1024" && output.memory == "2048"
    error_message = "The task definition takes cpu and memory as strings."
  }
  assert {
    condition     = output.ecr_repository_arn == null
    error_message = "No image: nothing to pull from outside the run's repository."
  }
}

run "every_edge_of_the_table_is_valid" {
  command = plan

  variables {
    cpu    = 16384
    memory = 122880
  }

  assert {
    condition     = output.memory == "122880"
    error_message = "16 vCPU with 120 GB is a valid Fargate size."
  }
}

run "small_and_large_valid_pairs" {
  command = plan

  variables {
    cpu    = 256
    memory = 512
  }

  assert {
    condition = alltrue([
      contains(local.fargate_memory_mib["512"], 4096), !contains(local.fargate_memory_mib["512"], 512),
      contains(local.fargate_memory_mib["4096"], 30720), !contains(local.fargate_memory_mib["4096"], 31744),
      contains(local.fargate_memory_mib["8192"], 20480), !contains(local.fargate_memory_mib["8192"], 17408),
      length(local.fargate_memory_mib["16384"]) == 12,
    ])
    error_message = "The table must follow AWS's steps (1 GB up to 4 vCPU, 4 GB at 8 vCPU, 8 GB at 16 vCPU)."
  }
}

run "memory_a_multiple_of_512_but_not_valid_for_the_cpu_is_rejected" {
  command = plan

  # Passed the old per-variable check (a multiple of 512) and failed at registration.
  variables {
    cpu    = 1024
    memory = 1536
  }

  expect_failures = [var.memory]
}

run "memory_too_large_for_the_cpu_is_rejected" {
  command = plan

  variables {
    cpu    = 256
    memory = 4096
  }

  expect_failures = [var.memory]
}

run "eight_vcpu_off_its_4gb_step_is_rejected" {
  command = plan

  variables {
    cpu    = 8192
    memory = 17408
  }

  expect_failures = [var.memory]
}

run "unknown_cpu_is_rejected" {
  command = plan

  variables {
    cpu    = 3072
    memory = 8192
  }

  expect_failures = [var.cpu]
}

run "ecr_image_from_another_repository" {
  command = plan

  variables {
    image = "123456789012.dkr.ecr.eu-west-1.amazonaws.com/team/hotbench-worker:v3"
  }

  assert {
    condition     = output.ecr_repository_arn == "arn:aws:ecr:eu-west-1:123456789012:repository/team/hotbench-worker"
    error_message = "An ECR image names its repository: account, region and path, without the tag."
  }
}

run "ecr_image_by_digest_in_china" {
  command = plan

  variables {
    image = "210987654321.dkr.ecr.cn-north-1.amazonaws.com.cn/worker@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
  }

  assert {
    condition     = output.ecr_repository_arn == "arn:aws-cn:ecr:cn-north-1:210987654321:repository/worker"
    error_message = "A digest reference and the China partition must be read."
  }
}

run "public_image_needs_no_pull_permission" {
  command = plan

  variables {
    image = "public.ecr.aws/example/hotbench-worker:latest"
  }

  assert {
    condition     = output.ecr_repository_arn == null
    error_message = "A public image is not a private ECR repository."
  }
}
