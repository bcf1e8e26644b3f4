terraform {
  required_version = ">= 1.9"

  required_providers {
    aws = {
      source = "hashicorp/aws"
      # The same constraint in every module and example of the kit. Floor 6.41.0: the first
      # release with every aws_dynamodb_table fix the kit relies on (docs/terraform.md):
      #   6.29.0 GSI key_schema; no perpetual diff for a GSI without warm_throughput (#46094)
      #   6.30.0 no panic on a dynamic global_secondary_index or key_schema (#46195)
      #   6.32.1 no perpetual diff for a key_schema GSI with a range key (#46442)
      #   6.37.0 removing one key_schema GSI no longer deletes them all (#46602)
      #   6.41.0 no "Unmatched indexes" error for a GSI without a range key (#46322,
      #          #46755, fixed by #47427)
      # Ceiling: a new major version may change these resources; test before raising it.
      version = ">= 6.41.0, < 7.0.0"
    }
  }
}
