# Provider-free on purpose: everything here is pure computation, so `terraform init` and
# `terraform test` work offline and CI can check the spec -> settings rules without AWS.
terraform {
  # 1.9: validation blocks may refer to other variables (variants vs tables).
  required_version = ">= 1.9"
}
