variable "spec_file" {
  description = "Variant spec YAML whose `tables` list defines the tables (the same file `hotbench simulate` and `hotbench run` read). Defaults to the M1 hot-partition playbook."
  type        = string
  default     = null

  validation {
    condition     = var.spec_file == null || can(yamldecode(file(var.spec_file)).tables)
    error_message = "spec_file must be a readable YAML file with a top-level `tables` list."
  }
}

variable "run_id" {
  description = "Run identifier: lowercase letters, digits and '-', at most 24 characters. Every name starts with hotbench-<run_id>, every resource is tagged hotbench:run-id=<run_id>."
  type        = string

  validation {
    condition     = can(regex("^[a-z0-9]([a-z0-9-]{0,22}[a-z0-9])?$", var.run_id))
    error_message = "run_id must be 1-24 characters of lowercase letters, digits and '-', starting and ending with a letter or digit."
  }
}

variable "owner" {
  description = "Who to ask about these resources (e-mail or team), stored in the hotbench:owner tag."
  type        = string

  validation {
    condition     = length(trimspace(var.owner)) > 0
    error_message = "owner must not be empty: leftovers need someone to ask."
  }
}

variable "expires_at" {
  description = "RFC 3339 time after which anyone may delete these resources (e.g. 2025-06-01T18:00:00Z), stored in the hotbench:expires-at tag."
  type        = string

  validation {
    condition     = can(formatdate("YYYY", var.expires_at))
    error_message = "expires_at must be an RFC 3339 timestamp such as 2025-06-01T18:00:00Z."
  }
}

variable "region" {
  description = "AWS region to create everything in."
  type        = string
  default     = "us-east-1"

  validation {
    condition     = can(regex("^[a-z]{2}(-[a-z]+)+-[0-9]$", var.region))
    error_message = "region must look like us-east-1."
  }
}

variable "variants" {
  description = "Names of the spec's table entries to create. null (the default) creates all of them (bad, good, goodGsi, badOnDemand for the M1 playbook)."
  type        = list(string)
  default     = null

  validation {
    condition     = var.variants == null || try(length(var.variants) > 0, false)
    error_message = "variants must be null (all) or a non-empty list of spec table names."
  }
}

variable "create_fleet" {
  description = "Create the load-generator fleet `fleet` names (Lambda: the function, its role and log group; ECS: cluster, Fargate task definition, ECR repository, roles, log group, security group). false creates only tables, results table and dashboard."
  type        = bool
  default     = true
}

variable "fleet" {
  description = "What runs the workers: lambda (invocations of one function, modules/lambda-fleet) or ecs (Fargate tasks, modules/loadgen-fleet). `hotbench up` sets it from --fleet, the playbook's `fleet`, or lambda."
  type        = string
  default     = "lambda"

  validation {
    condition     = contains(["lambda", "ecs"], var.fleet)
    error_message = "fleet must be lambda or ecs."
  }
}

variable "lambda_package" {
  description = "fleet = lambda: path of the function's zip (`hotbench up` builds it without Docker: loadgen/, emulator/ and the pinned requirements for the runtime's platform)."
  type        = string
  default     = null
  nullable    = true

  validation {
    condition     = var.lambda_package == null || endswith(coalesce(var.lambda_package, ".zip"), ".zip")
    error_message = "lambda_package must be the path of a .zip file."
  }
}

variable "lambda_package_hash" {
  description = "fleet = lambda: base64 of the zip's SHA-256 (the function's source_code_hash)."
  type        = string
  default     = null
  nullable    = true
}

variable "lambda_memory" {
  description = "fleet = lambda: the function's memory in MB, 128-10240 (`hotbench up` sizes it to each worker's share of the rate: one vCPU at 1,769 MB)."
  type        = number
  default     = 1792
}

variable "lambda_timeout" {
  description = "fleet = lambda: the function's timeout in seconds, at most 900 (15 minutes); a longer run is measured in windows of successive invocations."
  type        = number
  default     = 900
}

variable "create_backstop" {
  description = "Create the backstop (modules/backstop): EventBridge Scheduler schedules in the account that delete the run's tables and dashboard, and stop its tasks, backstop_delay_minutes after expires_at, even when nobody runs `down`."
  type        = bool
  default     = true
}

variable "backstop_delay_minutes" {
  description = "Minutes after expires_at when the backstop acts: time for the operator's own `down` (the reaper's, at expires_at) to finish first."
  type        = number
  default     = 15

  validation {
    condition     = var.backstop_delay_minutes >= 0 && var.backstop_delay_minutes <= 1440
    error_message = "backstop_delay_minutes must be between 0 and 1440 (a day)."
  }
}

variable "create_dashboard" {
  description = "Create the per-run CloudWatch dashboard ($3/month past the account's first three, prorated)."
  type        = bool
  default     = true
}

variable "worker_image" {
  description = "Worker container image, by digest (<repository>@sha256:...) as `hotbench up` pins it. null (the default) uses <this run's ECR repository>:latest until the console has built and pinned the image (a second apply). An image in another private ECR repository may be used: the execution role is allowed to pull from it."
  type        = string
  default     = null
}

variable "image_build" {
  description = "Create the in-account worker image build (modules/image-build: a CodeBuild project, an S3 bucket for the sources, its role). `hotbench up` sets it when no docker, podman or finch is on PATH and no worker_image is given."
  type        = bool
  default     = false

  validation {
    condition     = !var.image_build || (var.create_fleet && var.fleet == "ecs")
    error_message = "image_build needs create_fleet = true and fleet = ecs: the build pushes to the ECS fleet's ECR repository."
  }
}

variable "task_count" {
  description = "Number of workers the console starts (Fargate tasks with RunTask, or Lambda invocations at a time; used by the console and the cost estimate: Terraform starts none)."
  type        = number
  default     = 4

  validation {
    condition     = var.task_count >= 1 && var.task_count <= 500 && floor(var.task_count) == var.task_count
    error_message = "task_count must be a whole number from 1 to 500."
  }
}

variable "task_cpu" {
  description = "Fargate CPU units per worker task: 256, 512, 1024, 2048, 4096, 8192 or 16384."
  type        = number
  default     = 1024
}

variable "task_memory" {
  description = "Fargate memory per worker task, MiB: a valid pair with task_cpu in AWS's table (modules/fargate-task), e.g. 1024 CPU takes 2048-8192 in 1024 steps. An invalid pair fails at plan."
  type        = number
  default     = 2048
}

variable "cpu_architecture" {
  description = "Worker CPU architecture: X86_64 or ARM64."
  type        = string
  default     = "X86_64"

  validation {
    condition     = contains(["X86_64", "ARM64"], var.cpu_architecture)
    error_message = "cpu_architecture must be X86_64 or ARM64."
  }
}

variable "worker_environment" {
  description = "Extra environment variables for the workers (HOTBENCH_* set by this stack win)."
  type        = map(string)
  default     = {}
}

variable "log_retention_days" {
  description = "Worker log retention in days (a CloudWatch Logs value: 1, 3, 5, 7, 14, 30, ...)."
  type        = number
  default     = 7
}

variable "subnet_ids" {
  description = "Subnets for the workers. Empty (the default) uses the default VPC's default subnets."
  type        = list(string)
  default     = []
}

variable "security_group_ids" {
  description = "Security groups for the workers. Empty (the default) uses the kit's own group (no inbound, HTTPS out). Given groups must allow HTTPS out to ECR, S3, CloudWatch Logs and DynamoDB."
  type        = list(string)
  default     = []
}

variable "assign_public_ip" {
  description = "Give each worker task a public IP (needed in a public subnet without NAT to pull the image and reach DynamoDB). null (the default): true on the default VPC, false on given subnets."
  type        = bool
  default     = null
  nullable    = true
}

variable "create_dynamodb_vpc_endpoint" {
  description = "Create a DynamoDB gateway VPC endpoint in the workers' VPC (free; keeps table traffic off NAT)."
  type        = bool
  default     = false
}

variable "tags" {
  description = "Extra tags for every resource (the hotbench:* tags always win)."
  type        = map(string)
  default     = {}
}
