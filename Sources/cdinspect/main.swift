import Foundation

// Core Data's own spelling of the debug switch is accepted as a synonym, so a developer can
// paste the launch argument from an Xcode scheme.
let arguments = CommandLine.arguments.dropFirst().map { $0 == "-com.apple.CoreData.SQLDebug" ? "--sql-debug" : $0 }
CDInspect.start(Array(arguments))
