# The data-plane permissions of a run's workers, written once for both fleets: the ECS
# task role (modules/loadgen-fleet) and the Lambda function's role (modules/lambda-fleet)
# put these actions on these resources in their own policy statement.

locals {
  # Data-plane only: no CreateTable/DeleteTable/UpdateTable, no other tables.
  # ConditionCheckItem: a TransactWriteItems with a ConditionCheck (the transaction
  # scenarios) needs it besides the actions of its other items.
  data_plane_actions = [
    "dynamodb:BatchGetItem",
    "dynamodb:BatchWriteItem",
    "dynamodb:ConditionCheckItem",
    "dynamodb:DeleteItem",
    "dynamodb:DescribeTable",
    "dynamodb:GetItem",
    "dynamodb:PutItem",
    "dynamodb:Query",
    "dynamodb:Scan",
    "dynamodb:UpdateItem",
  ]
  data_plane_resources = concat(
    var.table_arns,
    [for arn in var.table_arns : "${arn}/index/*"],
    [var.results_table_arn],
  )
}
