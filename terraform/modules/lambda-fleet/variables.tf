variable "names" {
  description = "Names from modules/spec (lambda_function, lambda_role, lambda_log_group), all derived from the run id."
  type        = map(string)
}

variable "table_arns" {
  description = "ARNs of the run's variant tables: the function may use their data plane (and their indexes') only."
  type        = list(string)
}

variable "results_table_arn" {
  description = "ARN of the run's results table (plan, barrier and counts)."
  type        = string
}

variable "package" {
  description = "Path of the function's zip (console/targets/fleets/lambda_package.py builds it at `hotbench up`: loadgen/, emulator/ and the pinned requirements for the runtime's platform)."
  type        = string

  validation {
    condition     = endswith(var.package, ".zip")
    error_message = "package must be the path of a .zip file."
  }
}

variable "package_hash" {
  description = "Base64 of the zip's SHA-256 (source_code_hash): a package that did not change is not uploaded again."
  type        = string
}

variable "memory" {
  description = "The function's memory in MB, 128-10240 (CPU grows with it: one vCPU at 1,769 MB)."
  type        = number
  default     = 1792

  validation {
    condition     = var.memory >= 128 && var.memory <= 10240 && floor(var.memory) == var.memory
    error_message = "memory must be a whole number of MB from 128 to 10240."
  }
}

variable "timeout" {
  description = "The function's timeout in seconds: an invocation lasts at most 900 s (15 minutes); the console measures a longer run in windows of successive invocations."
  type        = number
  default     = 900

  validation {
    condition     = var.timeout >= 1 && var.timeout <= 900
    error_message = "timeout must be from 1 to 900 seconds (Lambda's 15 minutes)."
  }
}

variable "cpu_architecture" {
  description = "X86_64 or ARM64 (the package's wheels must match)."
  type        = string
  default     = "X86_64"

  validation {
    condition     = contains(["X86_64", "ARM64"], var.cpu_architecture)
    error_message = "cpu_architecture must be X86_64 or ARM64."
  }
}

variable "environment" {
  description = "The function's environment: what loadgen/live/worker.py reads (the run id, the results table, the region)."
  type        = map(string)
}

variable "log_retention_days" {
  description = "Log retention in days (a CloudWatch Logs value: 1, 3, 5, 7, 14, 30, ...)."
  type        = number
  default     = 7
}

variable "tags" {
  description = "Tags for every resource (the run's hotbench:* tags)."
  type        = map(string)
  default     = {}
}
