import Foundation
import Inspector
import ManagedStore

/// `/doctor`: `doctor`'s report as a page (`DoctorView`).
struct DoctorPage {
    let page: PageRequest

    func response() throws -> WebResponse {
        let report = try page.run(["doctor"]).json
        return try page.answer(title: "Doctor", crumbs: [page.storeCrumb, ("doctor", nil)], value: report) {
            "<h1>Doctor</h1>" + DoctorView.html(report)
        }
    }
}
