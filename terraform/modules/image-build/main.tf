# The worker image built inside the account, for an operator without docker, podman or
# finch: `hotbench up` (or `hotbench image build`) uploads the worker's sources to the
# bucket, starts a build of this project, and pins the image it pushes by digest.
# Everything is named hotbench-<run_id>-* and destroyed with the run.

data "aws_caller_identity" "this" {}

locals {
  # Bucket names are global: the account id keeps two accounts' runs apart.
  bucket = "${var.names.prefix}-src-${data.aws_caller_identity.this.account_id}"
  # Native builds: an ARM64 task gets an image built on ARM, never an emulated one.
  environment = var.cpu_architecture == "ARM64" ? {
    type  = "ARM_CONTAINER"
    image = "aws/codebuild/amazonlinux2-aarch64-standard:3.0"
    } : {
    type  = "LINUX_CONTAINER"
    image = "aws/codebuild/amazonlinux2-x86_64-standard:5.0"
  }
}

resource "aws_s3_bucket" "source" {
  #checkov:skip=CKV_AWS_18:Holds one source archive for one run's build and is destroyed with the run; access logs would outlive it.
  #checkov:skip=CKV_AWS_21:Each archive is named by the hash of its sources; versions add nothing and block deletion.
  #checkov:skip=CKV_AWS_144:One run's build input in one region; a replica would be a leftover in another region.
  #checkov:skip=CKV_AWS_145:SSE-S3 (the S3 default) is enough for public source code; a KMS key per run adds cost and cleanup.
  #checkov:skip=CKV2_AWS_62:Nothing reacts to uploads; the console starts the build itself.
  #checkov:skip=CKV2_AWS_61:The bucket is destroyed with the run (force_destroy); no lifecycle is needed.
  bucket        = local.bucket
  force_destroy = true # destroy must not stop on the uploaded archive
  tags          = var.tags
}

resource "aws_s3_bucket_public_access_block" "source" {
  bucket                  = aws_s3_bucket.source.id
  block_public_acls       = true
  block_public_policy     = true
  ignore_public_acls      = true
  restrict_public_buckets = true
}

data "aws_iam_policy_document" "assume_codebuild" {
  statement {
    actions = ["sts:AssumeRole"]

    principals {
      type        = "Service"
      identifiers = ["codebuild.amazonaws.com"]
    }
  }
}

resource "aws_iam_role" "build" {
  name               = var.names.build_role
  description        = "hotbench image build: read the run's sources, push to the run's repository"
  assume_role_policy = data.aws_iam_policy_document.assume_codebuild.json
  tags               = var.tags
}

data "aws_iam_policy_document" "build" {
  #checkov:skip=CKV_AWS_356:ecr:GetAuthorizationToken has no resource-level permissions; AWS requires "*" for it.
  #checkov:skip=CKV_AWS_111:The only "*" statement is ecr:GetAuthorizationToken, which supports no resource-level permissions.
  statement {
    sid       = "EcrLogin"
    actions   = ["ecr:GetAuthorizationToken"]
    resources = ["*"]
  }

  statement {
    sid = "PushWorkerImage"
    actions = [
      "ecr:BatchCheckLayerAvailability",
      "ecr:BatchGetImage",
      "ecr:CompleteLayerUpload",
      "ecr:GetDownloadUrlForLayer",
      "ecr:InitiateLayerUpload",
      "ecr:PutImage",
      "ecr:UploadLayerPart",
    ]
    resources = [var.repository_arn]
  }

  statement {
    sid       = "ReadSources"
    actions   = ["s3:GetObject", "s3:GetObjectVersion"]
    resources = ["${aws_s3_bucket.source.arn}/*"]
  }

  statement {
    sid       = "WriteBuildLogs"
    actions   = ["logs:CreateLogStream", "logs:PutLogEvents"]
    resources = ["${var.log_group_arn}:*"]
  }
}

resource "aws_iam_role_policy" "build" {
  name   = "read-sources-push-image"
  role   = aws_iam_role.build.id
  policy = data.aws_iam_policy_document.build.json
}

resource "aws_codebuild_project" "image" {
  #checkov:skip=CKV_AWS_147:Builds public source code into an image; a KMS key per run adds cost and cleanup.
  #checkov:skip=CKV_AWS_316:Privileged mode is what a docker build inside CodeBuild needs (AWS's own Docker sample).
  name          = var.names.image_build
  description   = "hotbench: the worker image of run ${var.run_id}"
  service_role  = aws_iam_role.build.arn
  build_timeout = var.build_timeout_minutes

  source {
    type = "S3"
    # The console overrides the location with each archive's own key at StartBuild.
    location  = "${aws_s3_bucket.source.bucket}/worker-source/"
    buildspec = file("${path.module}/buildspec.yml")
  }

  artifacts {
    type = "NO_ARTIFACTS"
  }

  environment {
    compute_type    = "BUILD_GENERAL1_SMALL"
    type            = local.environment.type
    image           = local.environment.image
    privileged_mode = true # the docker daemon inside the build

    environment_variable {
      name  = "REPOSITORY_URI"
      value = var.repository_url
    }

    environment_variable {
      name  = "IMAGE_TAG"
      value = "latest" # overridden per build with the sources' tag
    }
  }

  # The fleet's log group (tagged, with its retention), not CodeBuild's default
  # /aws/codebuild/<project>, which nobody would delete.
  logs_config {
    cloudwatch_logs {
      group_name  = var.log_group_name
      stream_name = "image-build"
    }
  }

  tags = var.tags
}
