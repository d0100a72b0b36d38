# Fails when the committed data/vocab/gen_*.def differ from what
# data/vocab/vocabgen.py generates from the llama.cpp reference tree. The
# tree is not part of the project: its directory comes from the environment
# (GGUFLINT_LLAMA_TREE) or is ../shared/llama.cpp next to the source tree
# (its history file, llama.cpp-history.tsv, beside it); without it (or
# without python3) the test is skipped (it prints "SKIP:", which the test's
# SKIP_REGULAR_EXPRESSION matches).
# Regenerate with: python3 data/vocab/vocabgen.py LLAMA_TREE data/vocab
set(src "$ENV{GGUFLINT_LLAMA_TREE}")
if(src STREQUAL "")
  get_filename_component(src "${SOURCE}/../shared/llama.cpp" ABSOLUTE)
endif()
if(NOT EXISTS "${src}/src/llama-vocab.cpp" OR PYTHON STREQUAL "")
  message("SKIP: no llama.cpp tree at ${src} (set GGUFLINT_LLAMA_TREE) or no python3")
  return()
endif()
file(REMOVE_RECURSE "${OUT}")
file(MAKE_DIRECTORY "${OUT}")
execute_process(COMMAND ${PYTHON} ${SOURCE}/data/vocab/vocabgen.py ${src} ${OUT}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "vocabgen.py failed (${rc}): ${err}")
endif()
foreach(f gen_tokmodels.def gen_pretok.def)
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${OUT}/${f} ${SOURCE}/data/vocab/${f}
                  RESULT_VARIABLE diff)
  if(NOT diff EQUAL 0)
    message(FATAL_ERROR "data/vocab/${f} is stale: run `python3 data/vocab/vocabgen.py ${src} data/vocab`")
  endif()
endforeach()
message("data/vocab/gen_*.def match vocabgen.py's output from ${src}: ${out}")
