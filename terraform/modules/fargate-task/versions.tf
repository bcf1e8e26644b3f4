# Provider-free on purpose, like modules/spec: the Fargate size rules and the image's
# repository are pure computation, so `terraform test` checks them offline.
terraform {
  # 1.9: a validation block may refer to another variable and to locals (cpu vs memory).
  required_version = ">= 1.9"
}
