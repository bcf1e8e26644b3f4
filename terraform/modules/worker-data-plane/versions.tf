# Provider-free on purpose: a list of actions and ARNs is pure computation, so both fleets
# share it without a second provider configuration.
terraform {
  # Same floor as the rest of the kit (modules/spec needs 1.9).
  required_version = ">= 1.9"
}
