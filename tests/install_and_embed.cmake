# CTest test install_and_embed: installs the built gatkit into a fresh prefix, builds
# examples/embed against it with nothing but find_package(gatkit), and runs the example.
#
#   cmake -DBUILD_DIR=<gatkit build> -DSOURCE_DIR=<gatkit source> -DWORK_DIR=<scratch folder>
#         -DCONFIG=<Release|...> -DCXX_COMPILER=<path> -P install_and_embed.cmake
#
# It only installs what `cmake --build` already built: run it after building (scripts/test does).
cmake_minimum_required(VERSION 3.22)
foreach(var BUILD_DIR SOURCE_DIR WORK_DIR CXX_COMPILER)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "install_and_embed: -D${var}=... is required")
  endif()
endforeach()

set(prefix ${WORK_DIR}/prefix)
set(config_args "")
if(CONFIG)
  set(config_args --config ${CONFIG})
endif()
set(example_build ${WORK_DIR}/embed-build)
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})

# Runs one step; on failure prints its output and stops the test.
function(step name)
  list(JOIN ARGN " " command)
  message(STATUS "install_and_embed: ${name}: ${command}")
  execute_process(COMMAND ${ARGN} WORKING_DIRECTORY ${WORK_DIR}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "install_and_embed: ${name} failed (${rc}):\n${out}")
  endif()
  set(step_output "${out}" PARENT_SCOPE)
endfunction()

step(install ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix} ${config_args})
foreach(f include/gatkit/gatkit.hpp lib/cmake/gatkit/gatkitConfig.cmake
          lib/cmake/gatkit/gatkitConfigVersion.cmake lib/cmake/gatkit/gatkitTargets.cmake
          lib/cmake/gatkit/FindRDKit.cmake bin/gatkit lib/gatkit/gatkit_draw.so)
  if(NOT EXISTS ${prefix}/${f})
    message(FATAL_ERROR "install_and_embed: ${prefix}/${f} was not installed")
  endif()
endforeach()

# The example must find the installed package and nothing else: no source or build tree paths,
# and no package registry.
step(configure ${CMAKE_COMMAND} -S ${SOURCE_DIR}/examples/embed -B ${example_build}
  -DCMAKE_BUILD_TYPE=${CONFIG} -DCMAKE_CXX_COMPILER=${CXX_COMPILER}
  -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF)
file(STRINGS ${example_build}/CMakeCache.txt gatkit_dir REGEX "^gatkit_DIR:")
if(NOT gatkit_dir STREQUAL "gatkit_DIR:PATH=${prefix}/lib/cmake/gatkit")
  message(FATAL_ERROR "install_and_embed: the example found '${gatkit_dir}', not ${prefix}/lib/cmake/gatkit")
endif()
step(build ${CMAKE_COMMAND} --build ${example_build} ${config_args})

find_program(embed NAMES embed PATHS ${example_build} ${example_build}/${CONFIG} NO_DEFAULT_PATH REQUIRED)
step(run ${embed} ${SOURCE_DIR}/examples/embed/molecules.csv)
message("${step_output}")
# What the example must show: training epochs, the reloaded model's predictions, the invalid
# SMILES reported (not thrown), and attention weights.
foreach(expected "epoch 1 " "test roc_auc" "predictions of" "not-a-smiles: error" "attention of")
  string(FIND "${step_output}" "${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "install_and_embed: the example's output lacks '${expected}'")
  endif()
endforeach()
if(NOT EXISTS ${WORK_DIR}/embed.gatkit)
  message(FATAL_ERROR "install_and_embed: the example did not write ${WORK_DIR}/embed.gatkit")
endif()
# The installed program finds its drawing plugin in the installed layout (lib/gatkit).
file(REMOVE ${WORK_DIR}/phenol.svg)
step(explain ${prefix}/bin/gatkit explain --model ${WORK_DIR}/embed.gatkit --smiles c1ccccc1O --out ${WORK_DIR}/phenol.svg)
file(READ ${WORK_DIR}/phenol.svg svg)
string(FIND "${svg}" "</svg>" at)
if(at EQUAL -1)
  message(FATAL_ERROR "install_and_embed: the installed program's explain wrote no SVG")
endif()
