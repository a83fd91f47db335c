# model results and usage reports costing at least $usd dollars (cost_usd)
def costly($usd):
  ((.kind == "model_result" or .kind == "usage") and .payload.cost_usd >= $usd)
  or (.type == "usage" and .cost_usd >= $usd);
