# Install rules of the C++ libraries (docs/install.md): the archives, the
# public headers and generated protobuf headers of each library's folder under
# include/sluice/<folder>/, a CMake package (SluiceConfig.cmake: Sluice::
# imported targets) and a pkg-config file (sluice.pc). The `sluice` CLI
# (tools/) and the Python package (python/) install themselves.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# The installed libraries, in link order: each after every library it links
# (checked below; sluice.pc lists them in reverse). Those this build defines
# are installed: sluice_cuda, the GPU path, exists only where nvcc does.
# sluice_<name> is exported as Sluice::<name>; the headers installed with it
# are those of the folder whose CMakeLists.txt defines it.
set(SLUICE_LIBRARIES sluice_core sluice_ops sluice_tfrecord sluice_dataset sluice_executor sluice_model
                     sluice_service_wire sluice_service sluice_cuda)
set(SLUICE_INSTALLED_LIBRARIES)
foreach(library ${SLUICE_LIBRARIES})
  if(TARGET ${library})
    list(APPEND SLUICE_INSTALLED_LIBRARIES ${library})
  endif()
endforeach()

set(SLUICE_CMAKE_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/Sluice)
set(SLUICE_PKGCONFIG_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

set(installed)
set(header_folders)
set(link_interfaces)  # what a consumer links with the libraries, for the dependencies below
foreach(library ${SLUICE_INSTALLED_LIBRARIES})
  get_target_property(linked ${library} LINK_LIBRARIES)
  foreach(item ${linked})
    if(item MATCHES "^sluice_" AND NOT item IN_LIST installed)
      message(FATAL_ERROR "SLUICE_LIBRARIES (cmake/Install.cmake): ${library} links ${item}, "
                          "which must be installed and listed before it")
    endif()
  endforeach()
  list(APPEND installed ${library})

  string(REGEX REPLACE "^sluice_" "" export_name ${library})
  set_target_properties(${library} PROPERTIES EXPORT_NAME ${export_name})
  # The build tree includes through the global include_directories.
  target_include_directories(${library} INTERFACE $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  target_compile_features(${library} INTERFACE cxx_std_20)
  get_target_property(interface ${library} INTERFACE_LINK_LIBRARIES)
  list(APPEND link_interfaces ${interface})

  get_target_property(source_dir ${library} SOURCE_DIR)
  file(RELATIVE_PATH folder ${CMAKE_SOURCE_DIR} ${source_dir})
  if(NOT folder IN_LIST header_folders)
    list(APPEND header_folders ${folder})
    file(GLOB headers CONFIGURE_DEPENDS ${source_dir}/*.h)
    install(FILES ${headers} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/sluice/${folder})
  endif()
  # Each generated x.pb.cc has its x.pb.h beside it in the build tree.
  get_target_property(sources ${library} SOURCES)
  list(FILTER sources INCLUDE REGEX "\\.pb\\.cc$")
  list(TRANSFORM sources REPLACE "\\.pb\\.cc$" ".pb.h")
  install(FILES ${sources} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/sluice/${folder})
endforeach()

# Sluice::sluice: every library but the GPU path, which a program links by
# name (Sluice::cuda) so that CPU programs never load the CUDA libraries.
set(cpu_libraries ${SLUICE_INSTALLED_LIBRARIES})
list(REMOVE_ITEM cpu_libraries sluice_cuda)
add_library(sluice_libraries INTERFACE)
target_link_libraries(sluice_libraries INTERFACE ${cpu_libraries})
set_target_properties(sluice_libraries PROPERTIES EXPORT_NAME sluice)

install(TARGETS ${SLUICE_INSTALLED_LIBRARIES} sluice_libraries EXPORT SluiceTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(EXPORT SluiceTargets NAMESPACE Sluice:: DESTINATION ${SLUICE_CMAKE_INSTALL_DIR})

# Where the libraries are shared (BUILD_SHARED_LIBS, as the sanitizer presets
# build them), each installed binary finds them relative to its own place.
function(sluice_set_install_rpath target install_dir)
  file(RELATIVE_PATH to_libdir /${install_dir} /${CMAKE_INSTALL_LIBDIR})
  set_target_properties(${target} PROPERTIES INSTALL_RPATH "$ORIGIN/${to_libdir}")
endfunction()
if(BUILD_SHARED_LIBS)
  foreach(library ${SLUICE_INSTALLED_LIBRARIES})
    sluice_set_install_rpath(${library} ${CMAKE_INSTALL_LIBDIR})
  endforeach()
  sluice_set_install_rpath(sluice ${CMAKE_INSTALL_BINDIR})
  if(TARGET _sluice)
    sluice_set_install_rpath(_sluice ${SLUICE_PYTHON_INSTALL_DIR}/sluice)
  endif()
endif()

# Dependencies a consumer links only in some builds: oneTBB's allocator (not
# under sanitizers, core/CMakeLists.txt) and the CUDA libraries (where nvcc
# exists). SluiceConfig.cmake finds CUDAToolkit only where a library links it.
set(SLUICE_PC_DEPENDENCY_LIBS)
if(link_interfaces MATCHES "TBB::tbbmalloc")
  list(APPEND SLUICE_PC_DEPENDENCY_LIBS -ltbbmalloc)
endif()
set(SLUICE_PC_DEPENDENCY_CFLAGS)
if(link_interfaces MATCHES "CUDA::")
  set(SLUICE_FIND_CUDATOOLKIT ON)
  list(TRANSFORM CUDAToolkit_INCLUDE_DIRS PREPEND -I OUTPUT_VARIABLE SLUICE_PC_DEPENDENCY_CFLAGS)
  list(APPEND SLUICE_PC_DEPENDENCY_LIBS -L${CUDAToolkit_LIBRARY_DIR} -Wl,-rpath,${CUDAToolkit_LIBRARY_DIR})
  string(REGEX MATCHALL "CUDA::[A-Za-z0-9_]+" cuda_libraries "${link_interfaces}")
  list(REMOVE_DUPLICATES cuda_libraries)
  list(TRANSFORM cuda_libraries REPLACE "^CUDA::" "-l")
  # Linked only by a program whose objects use them, so that a CPU program
  # built with sluice.pc does not load the CUDA libraries.
  list(APPEND SLUICE_PC_DEPENDENCY_LIBS -Wl,--as-needed ${cuda_libraries} -Wl,--no-as-needed)
else()
  set(SLUICE_FIND_CUDATOOLKIT OFF)
endif()
list(APPEND SLUICE_PC_DEPENDENCY_LIBS -lfarmhash -lpthread)  # libfarmhash has no pkg-config file
if(BUILD_SHARED_LIBS)
  list(PREPEND SLUICE_PC_DEPENDENCY_LIBS -Wl,-rpath,\${libdir})
endif()

configure_package_config_file(cmake/SluiceConfig.cmake.in ${CMAKE_BINARY_DIR}/SluiceConfig.cmake
                              INSTALL_DESTINATION ${SLUICE_CMAKE_INSTALL_DIR})
# 0.x: a minor version may change the interface.
write_basic_package_version_file(${CMAKE_BINARY_DIR}/SluiceConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/SluiceConfig.cmake ${CMAKE_BINARY_DIR}/SluiceConfigVersion.cmake
        DESTINATION ${SLUICE_CMAKE_INSTALL_DIR})

# sluice.pc finds the prefix from its own place (${pcfiledir}), so that a tree
# installed with `cmake --install --prefix DIR` works wherever DIR is.
file(RELATIVE_PATH SLUICE_PC_PREFIX_FROM_PCFILEDIR /${SLUICE_PKGCONFIG_INSTALL_DIR} /)
string(REGEX REPLACE "/$" "" SLUICE_PC_PREFIX_FROM_PCFILEDIR "${SLUICE_PC_PREFIX_FROM_PCFILEDIR}")
set(SLUICE_PC_LIBS)
foreach(library ${SLUICE_INSTALLED_LIBRARIES})
  list(PREPEND SLUICE_PC_LIBS -l${library})
endforeach()
list(JOIN SLUICE_PC_LIBS " " SLUICE_PC_LIBS)
list(JOIN SLUICE_PC_DEPENDENCY_LIBS " " SLUICE_PC_DEPENDENCY_LIBS)
list(JOIN SLUICE_PC_DEPENDENCY_CFLAGS " " SLUICE_PC_DEPENDENCY_CFLAGS)
configure_file(cmake/sluice.pc.in ${CMAKE_BINARY_DIR}/sluice.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/sluice.pc DESTINATION ${SLUICE_PKGCONFIG_INSTALL_DIR})
