# Where workers meet and report: READY / GO barrier items, periodic progress and final
# results, keyed by run. On-demand because the traffic is tiny and bursty; TTL on
# expires_at so forgotten runs clean their own items even if the table outlives them.
resource "aws_dynamodb_table" "this" {
  #checkov:skip=CKV_AWS_28:Run results are copied to the console when the run ends; the table is destroyed with the run.
  #checkov:skip=CKV_AWS_119:Holds benchmark counters only; the AWS-owned key avoids per-run KMS keys and charges.
  name                        = var.name
  billing_mode                = "PAY_PER_REQUEST"
  hash_key                    = "run_id"
  range_key                   = "item"
  deletion_protection_enabled = false

  attribute {
    name = "run_id"
    type = "S"
  }

  attribute {
    name = "item"
    type = "S"
  }

  ttl {
    attribute_name = "expires_at"
    enabled        = true
  }

  tags = var.tags
}
