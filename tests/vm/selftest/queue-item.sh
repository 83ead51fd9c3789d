#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# An item of tests/check-harness.sh's shared-queue test: takes a moment,
# so that two guests both get to claim items.
sleep 2
echo "ran in lane ${XIB_LANE:-none}"
