# FindRDKit.cmake
# ---------------
#
# Finds an RDKit installation that ships no CMake package configuration, as
# Debian 12's librdkit-dev does (headers in /usr/include/rdkit, libraries named
# libRDKit<Component>.so in /usr/lib).
#
# Usage:
#
#   find_package(RDKit [version] [REQUIRED]
#                [COMPONENTS SmilesParse FileParsers Depictor MolDraw2D ...])
#
# A component is the library name without the "RDKit" prefix, e.g. SmilesParse
# for libRDKitSmilesParse.so.  The GraphMol and RDGeneral components are always
# searched for, because every other component depends on them.
#
# Imported targets (one per found component, plus everything it depends on):
#
#   RDKit::<Component>   e.g. RDKit::GraphMol, RDKit::MolDraw2D
#
# Each target carries the RDKit include directory, the Boost headers, and links
# the RDKit components it depends on, so linking RDKit::MolDraw2D alone is
# enough for code that draws molecules.
#
# Result variables:
#
#   RDKit_FOUND               all required components (and their dependencies)
#                             were found
#   RDKit_<Component>_FOUND   per component
#   RDKit_VERSION             e.g. 2022.09.3
#   RDKit_INCLUDE_DIRS        the RDKit include directory
#   RDKit_LIBRARIES           the imported targets of the requested components
#
# Cache variables (set these to override the search):
#
#   RDKit_INCLUDE_DIR         directory containing GraphMol/ROMol.h
#   RDKit_<Component>_LIBRARY path of libRDKit<Component>
#
# RDKit_ROOT, or the RDBASE environment variable of a source build, may point
# at a non-system installation.  Requires CMake 3.15 (Boost::headers,
# list(POP_FRONT)).

include(FindPackageHandleStandardArgs)

# Direct dependencies between RDKit libraries, taken from the DT_NEEDED entries
# of Debian 12's RDKit 2022.09 shared libraries with transitively implied
# entries removed.  Headers call inline code from their dependencies, so a
# consumer that links only one component still needs these on its link line.
set(_RDKit_DEPS_RDGeneral "")
set(_RDKit_DEPS_DataStructs RDGeneral)
set(_RDKit_DEPS_RDGeometryLib DataStructs)
set(_RDKit_DEPS_GraphMol RDGeometryLib)
set(_RDKit_DEPS_SmilesParse GraphMol)
set(_RDKit_DEPS_GenericGroups GraphMol)
set(_RDKit_DEPS_SubstructMatch GenericGroups)
set(_RDKit_DEPS_MolTransforms GraphMol)
set(_RDKit_DEPS_Depictor MolTransforms SubstructMatch)
set(_RDKit_DEPS_ChemTransforms SmilesParse SubstructMatch)
set(_RDKit_DEPS_FileParsers ChemTransforms Depictor)
set(_RDKit_DEPS_Subgraphs GraphMol)
set(_RDKit_DEPS_Fingerprints SmilesParse Subgraphs SubstructMatch)
set(_RDKit_DEPS_PartialCharges GraphMol)
set(_RDKit_DEPS_Descriptors MolTransforms PartialCharges SmilesParse Subgraphs SubstructMatch)
set(_RDKit_DEPS_Catalogs RDGeneral)
set(_RDKit_DEPS_FilterCatalog Catalogs SmilesParse SubstructMatch)
set(_RDKit_DEPS_ChemReactions Descriptors FileParsers FilterCatalog Fingerprints)
set(_RDKit_DEPS_MolDraw2D ChemReactions)
set(_RDKit_DEPS_Abbreviations SmilesParse SubstructMatch)
set(_RDKit_DEPS_Alignment RDGeometryLib)
set(_RDKit_DEPS_CIPLabeler GraphMol)
set(_RDKit_DEPS_ChemicalFeatures RDGeneral)
set(_RDKit_DEPS_Deprotect ChemReactions)
set(_RDKit_DEPS_EigenSolvers RDGeneral)
set(_RDKit_DEPS_ForceField RDGeometryLib)
set(_RDKit_DEPS_ForceFieldHelpers ForceField SmilesParse SubstructMatch)
set(_RDKit_DEPS_DistGeometry EigenSolvers ForceFieldHelpers)
set(_RDKit_DEPS_DistGeomHelpers Alignment DistGeometry)
set(_RDKit_DEPS_FMCS SmilesParse SubstructMatch)
set(_RDKit_DEPS_FragCatalog Catalogs SmilesParse Subgraphs SubstructMatch)
set(_RDKit_DEPS_InfoTheory DataStructs)
set(_RDKit_DEPS_MMPA SmilesParse SubstructMatch)
set(_RDKit_DEPS_MolAlign Alignment MolTransforms SmilesParse SubstructMatch)
set(_RDKit_DEPS_MolCatalog Catalogs GraphMol)
set(_RDKit_DEPS_MolChemicalFeatures SmilesParse SubstructMatch)
set(_RDKit_DEPS_MolEnumerator ChemReactions)
set(_RDKit_DEPS_MolHash SmilesParse)
set(_RDKit_DEPS_MolInterchange GraphMol)
set(_RDKit_DEPS_MolStandardize ChemReactions)
set(_RDKit_DEPS_O3AAlign MolAlign)
set(_RDKit_DEPS_Optimizer RDGeneral)
set(_RDKit_DEPS_RDStreams RDGeneral)
set(_RDKit_DEPS_ga RDGeneral)
set(_RDKit_DEPS_hc RDGeneral)
set(_RDKit_DEPS_RGroupDecomposition ChemTransforms FMCS Fingerprints ga)
set(_RDKit_DEPS_ReducedGraphs SmilesParse SubstructMatch)
set(_RDKit_DEPS_SLNParse GraphMol)
set(_RDKit_DEPS_ScaffoldNetwork MolStandardize)
set(_RDKit_DEPS_ShapeHelpers MolTransforms)
set(_RDKit_DEPS_SimDivPickers hc)
set(_RDKit_DEPS_TautomerQuery MolStandardize)
set(_RDKit_DEPS_SubstructLibrary TautomerQuery)
set(_RDKit_DEPS_Trajectory GraphMol)

# Components missing from the table (e.g. libraries added by a newer RDKit) are
# still accepted; they get GraphMol as their only dependency because nearly
# every RDKit library builds on it, and GraphMol is always available.
macro(_rdkit_component_deps _comp _out)
  if(DEFINED _RDKit_DEPS_${_comp})
    set(${_out} ${_RDKit_DEPS_${_comp}})
  else()
    set(${_out} GraphMol)
  endif()
endmacro()

set(_RDKit_requested ${RDKit_FIND_COMPONENTS})
if(NOT _RDKit_requested)
  set(_RDKit_requested GraphMol)
endif()

# Expand the request to its dependency closure: a component is only usable if
# every library it links against is present as well.
set(_RDKit_components GraphMol RDGeneral ${_RDKit_requested})
list(REMOVE_DUPLICATES _RDKit_components)
set(_RDKit_queue ${_RDKit_components})
while(_RDKit_queue)
  list(POP_FRONT _RDKit_queue _RDKit_comp)
  _rdkit_component_deps(${_RDKit_comp} _RDKit_comp_deps)
  foreach(_RDKit_dep IN LISTS _RDKit_comp_deps)
    if(NOT _RDKit_dep IN_LIST _RDKit_components)
      list(APPEND _RDKit_components ${_RDKit_dep})
      list(APPEND _RDKit_queue ${_RDKit_dep})
    endif()
  endforeach()
endwhile()

find_path(RDKit_INCLUDE_DIR
  NAMES GraphMol/ROMol.h
  HINTS ENV RDBASE
  PATH_SUFFIXES rdkit include/rdkit Code
  DOC "RDKit include directory (contains GraphMol/ROMol.h)")
mark_as_advanced(RDKit_INCLUDE_DIR)

foreach(_RDKit_comp IN LISTS _RDKit_components)
  find_library(RDKit_${_RDKit_comp}_LIBRARY
    NAMES RDKit${_RDKit_comp}
    HINTS ENV RDBASE
    PATH_SUFFIXES lib
    DOC "RDKit ${_RDKit_comp} library")
  mark_as_advanced(RDKit_${_RDKit_comp}_LIBRARY)
endforeach()

# A component counts as found only when its own library and those of all its
# dependencies were found, since linking it would fail otherwise.
function(_rdkit_check_component _comp _out)
  set(_found FALSE)
  if(RDKit_${_comp}_LIBRARY AND RDKit_INCLUDE_DIR)
    set(_found TRUE)
    _rdkit_component_deps(${_comp} _deps)
    foreach(_dep IN LISTS _deps)
      _rdkit_check_component(${_dep} _dep_found)
      if(NOT _dep_found)
        set(_found FALSE)
      endif()
    endforeach()
  endif()
  set(${_out} ${_found} PARENT_SCOPE)
endfunction()

foreach(_RDKit_comp IN LISTS _RDKit_components)
  _rdkit_check_component(${_RDKit_comp} RDKit_${_RDKit_comp}_FOUND)
endforeach()

# versions.h is generated by RDKit's build, but Debian's copy still contains
# the unsubstituted template ("@RDKit_Year @"), so fall back to the version the
# upstream build encodes in the library file name (libX.so.1.2022.09.3).
unset(RDKit_VERSION)
if(RDKit_INCLUDE_DIR AND EXISTS "${RDKit_INCLUDE_DIR}/RDGeneral/versions.h")
  # Match the definition itself, which spans a line continuation; the
  # header's usage comment also contains an RDKIT_VERSION_CHECK(...) example.
  file(READ "${RDKit_INCLUDE_DIR}/RDGeneral/versions.h" _RDKit_versions_h)
  if(_RDKit_versions_h MATCHES
      "#define RDKIT_VERSION[ \t\\\n]+RDKIT_VERSION_CHECK\\(([0-9]+), *([0-9]+), *([0-9]+)\\)")
    set(_RDKit_month "${CMAKE_MATCH_2}")
    if(_RDKit_month LESS 10)
      set(_RDKit_month "0${_RDKit_month}")
    endif()
    set(RDKit_VERSION "${CMAKE_MATCH_1}.${_RDKit_month}.${CMAKE_MATCH_3}")
  endif()
endif()
if(NOT RDKit_VERSION AND RDKit_RDGeneral_LIBRARY)
  get_filename_component(_RDKit_real_library "${RDKit_RDGeneral_LIBRARY}"
    REALPATH)
  if(_RDKit_real_library MATCHES "\\.so\\.[0-9]+\\.([0-9]+\\.[0-9]+\\.[0-9]+)$")
    set(RDKit_VERSION "${CMAKE_MATCH_1}")
  endif()
endif()

# RDKit's public headers include Boost (smart_ptr, iostreams, ...) and its own
# threading primitives.  The Boost parts used by headers are header-only; the
# compiled Boost libraries RDKit uses are private DT_NEEDED dependencies of
# the RDKit shared libraries and need no mention on the consumer's link line.
find_package(Boost QUIET)
find_package(Threads QUIET)
# MolTransforms.h exposes Eigen types when RDConfig.h defines RDK_HAS_EIGEN3.
if("MolTransforms" IN_LIST _RDKit_components)
  find_package(Eigen3 QUIET NO_MODULE)
endif()

# The Boost headers are mandatory; a named variable makes the failure message
# of find_package_handle_standard_args point at them.
if(TARGET Boost::headers)
  set(RDKit_Boost_HEADERS Boost::headers)
else()
  set(RDKit_Boost_HEADERS RDKit_Boost_HEADERS-NOTFOUND)
endif()

find_package_handle_standard_args(RDKit
  REQUIRED_VARS RDKit_INCLUDE_DIR RDKit_RDGeneral_LIBRARY RDKit_GraphMol_LIBRARY
                RDKit_GraphMol_FOUND RDKit_Boost_HEADERS
  VERSION_VAR RDKit_VERSION
  HANDLE_COMPONENTS)

# Targets are created for every component that was found, even when a
# requested one is missing, so optional use of RDKit::GraphMol etc. still works.
if(RDKit_INCLUDE_DIR AND RDKit_Boost_HEADERS)
  set(RDKit_INCLUDE_DIRS "${RDKit_INCLUDE_DIR}")

  foreach(_RDKit_comp IN LISTS _RDKit_components)
    if(RDKit_${_RDKit_comp}_FOUND AND NOT TARGET RDKit::${_RDKit_comp})
      add_library(RDKit::${_RDKit_comp} UNKNOWN IMPORTED)
      set_target_properties(RDKit::${_RDKit_comp} PROPERTIES
        IMPORTED_LOCATION "${RDKit_${_RDKit_comp}_LIBRARY}"
        INTERFACE_INCLUDE_DIRECTORIES "${RDKit_INCLUDE_DIR}")
      if(_RDKit_comp STREQUAL "RDGeneral")
        # Every other component reaches Boost and Threads through RDGeneral.
        target_link_libraries(RDKit::RDGeneral INTERFACE Boost::headers)
        if(TARGET Threads::Threads)
          target_link_libraries(RDKit::RDGeneral INTERFACE Threads::Threads)
        endif()
      else()
        _rdkit_component_deps(${_RDKit_comp} _RDKit_comp_deps)
        list(TRANSFORM _RDKit_comp_deps PREPEND "RDKit::")
        target_link_libraries(RDKit::${_RDKit_comp} INTERFACE ${_RDKit_comp_deps})
      endif()
      if(_RDKit_comp STREQUAL "MolTransforms" AND TARGET Eigen3::Eigen)
        target_link_libraries(RDKit::MolTransforms INTERFACE Eigen3::Eigen)
      endif()
    endif()
  endforeach()

  set(RDKit_LIBRARIES "")
  foreach(_RDKit_comp IN LISTS _RDKit_requested)
    if(TARGET RDKit::${_RDKit_comp})
      list(APPEND RDKit_LIBRARIES RDKit::${_RDKit_comp})
    endif()
  endforeach()
endif()
