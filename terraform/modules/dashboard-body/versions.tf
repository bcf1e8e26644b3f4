# Provider-free on purpose: the dashboard JSON is pure computation, so `terraform init` and
# `terraform test` work offline and CI can check which metrics and dimensions the dashboard shows.
terraform {
  # Same floor as the rest of the kit (modules/spec needs 1.9).
  required_version = ">= 1.9"
}
