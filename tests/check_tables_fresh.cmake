# Fails when committed tables differ from what their generator makes of the
# llama.cpp reference tree they were stamped with. One script for every
# generated table set (the ctests arch_tables_fresh, vocab_tables_fresh,
# clip_tables_fresh in tests/CMakeLists.txt). The tree is not part of the
# project: its directory comes from the environment (GGUFLINT_LLAMA_SRC) or is
# ../shared/llama.cpp next to the source tree; without it, or without python3,
# the test is skipped (it prints "SKIP:", which the tests'
# SKIP_REGULAR_EXPRESSION matches).
#
#   -DSOURCE=  the source tree          -DPYTHON=  python3
#   -DOUT=     a scratch directory      -DGEN=     the generator, relative to SOURCE
#   -DDATA=    the tables' directory, relative to SOURCE
#   -DFILES=   the generated files (a ;-list)
#   -DNEEDS=   files the tree must hold, relative to it (a ;-list)
#   -DOPTIONAL="TREE_FILE=TABLE": TABLE is compared only when the tree has TREE_FILE
set(src "$ENV{GGUFLINT_LLAMA_SRC}")
if(src STREQUAL "")
  get_filename_component(src "${SOURCE}/../shared/llama.cpp" ABSOLUTE)
endif()
set(have TRUE)
foreach(n ${NEEDS})
  if(NOT EXISTS "${src}/${n}")
    set(have FALSE)
  endif()
endforeach()
if(NOT have OR PYTHON STREQUAL "")
  message("SKIP: no llama.cpp tree with ${NEEDS} at ${src} (set GGUFLINT_LLAMA_SRC) or no python3")
  return()
endif()
set(files ${FILES})
if(OPTIONAL)
  string(REPLACE "=" ";" opt "${OPTIONAL}")
  list(GET opt 0 probe)
  list(GET opt 1 table)
  if(EXISTS "${src}/${probe}")
    list(APPEND files ${table})
  endif()
endif()
file(REMOVE_RECURSE "${OUT}")
file(MAKE_DIRECTORY "${OUT}")
execute_process(COMMAND ${PYTHON} ${SOURCE}/${GEN} ${src} ${OUT}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${GEN} failed (${rc}): ${err}")
endif()
foreach(f ${files})
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${OUT}/${f} ${SOURCE}/${DATA}/${f}
                  RESULT_VARIABLE diff)
  if(NOT diff EQUAL 0)
    message(FATAL_ERROR "${DATA}/${f} is stale: run `python3 ${GEN} ${src} ${DATA}` "
            "(a tree of another commit than the tables' stamp also differs: say which one in "
            "the commit)")
  endif()
endforeach()
message("${DATA}: ${files} match ${GEN}'s output from ${src} ${out}")
