# Fails when the committed RULES.md differs from `gguflint rules --markdown`.
# Regenerate with: build/gguflint rules --markdown > rules/RULES.md
execute_process(COMMAND ${CLI} rules --markdown OUTPUT_FILE ${OUT} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "gguflint rules --markdown failed: ${rc}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${OUT} ${EXPECTED} RESULT_VARIABLE diff)
if(NOT diff EQUAL 0)
  message(FATAL_ERROR "rules/RULES.md is stale: run `gguflint rules --markdown > rules/RULES.md`")
endif()
