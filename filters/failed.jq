# any failure in either vocabulary: error, model_error, run_error, killed, a tool result with is_error true or ok false, turn_end with stop "error", a response with success false
def failed:
  .kind == "error" or .kind == "model_error" or .kind == "run_error" or .kind == "killed"
  or (.kind == "tool_result" and (.payload.ok == false or .payload.is_error == true))
  or (.kind == "tool_execution_end" and .payload.is_error == true)
  or (.kind == "turn_end" and .payload.stop == "error")
  or (.kind == "response" and .payload.success == false)
  or .type == "error"
  or (.type == "tool_result" and .is_error == true)
  or (.type == "turn_end" and .stop == "error")
  or (.type == "response" and .success == false);
