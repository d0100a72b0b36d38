# Regenerates corpus/examples into OUT and compares with the committed files.
# Regenerate with: build-dev/tests/gen_examples corpus/examples
file(MAKE_DIRECTORY ${OUT})
execute_process(COMMAND ${GEN} ${OUT} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "gen_examples failed: ${rc}")
endif()
foreach(name valid.gguf hostile.gguf)
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${OUT}/${name} ${COMMITTED}/${name}
                  RESULT_VARIABLE diff)
  if(NOT diff EQUAL 0)
    message(FATAL_ERROR "corpus/examples/${name} is stale: run gen_examples corpus/examples")
  endif()
endforeach()
