terraform {
  required_version = ">= 1.9"

  required_providers {
    aws = {
      source = "hashicorp/aws"
      # 6.13: warm_throughput; 6.11: contributor insights `mode`; 5.72: on_demand_throughput.
      version = ">= 6.13"
    }
  }
}
